import type { LocalChain, TransferLog } from '../../chains/local-chain.js';
import { tokenAt } from '../../chains/networks.js';
import type { ChainInfo } from '../../domain/chains.js';
import { formatReceived, fromBaseUnits } from '../../domain/money.js';
import { parseDepositAddresses } from '../../store/json-columns.js';
import type { InvoiceRow } from '../../store/repos/invoices.js';
import { addPaymentIn, confirmPaymentIn } from '../actions/lifecycle.js';
import { ApiError } from '../api-error.js';
import type { ChainTransferEvent } from '../events.js';
import type { AppDeps } from '../route.js';
import type { DepositIndex } from './deposit-index.js';

/** What crediting needs: the app (its payment actions and the store's chain tables), the index. */
export interface CreditContext {
  deps: AppDeps;
  index: DepositIndex;
  confirmations: number;
}

/**
 * New blocks of one chain (the watcher's hook, src/chains/watcher.ts): each Transfer to a test
 * invoice's deposit address becomes a payment through the action the test helpers use, or is kept as
 * not credited with its reason; payments whose block now has `confirmations` blocks (its own
 * included) are confirmed; then the position is stored. Each transfer is one transaction with its
 * payment, and the (network, transaction, log) key makes a second sight of it (a restart before the
 * position was stored) a no-op: each transfer is credited once (CONTRACT §14).
 */
export async function processBlocks(ctx: CreditContext, chain: LocalChain, from: number, to: number, head: number): Promise<void> {
  for (const log of await chain.transfers(from, to)) {
    const invoiceId = await ctx.index.invoiceAt(log.to);
    if (invoiceId !== undefined) await recordTransfer(ctx, chain, log, invoiceId);
  }
  await confirmDue(ctx, chain.network, head);
  await ctx.deps.db.chains.saveLastBlock(chain.networkId, to, ctx.deps.clock.now());
}

async function recordTransfer(ctx: CreditContext, chain: LocalChain, log: TransferLog, invoiceId: string): Promise<void> {
  const { deps } = ctx;
  const network = chain.network;
  const token = tokenAt(network, log.contract);
  // Read before the transaction, which may await nothing but the store.
  const decimals = token?.decimals ?? (await decimalsOf(chain, log.contract));
  const exact = fromBaseUnits(log.value, decimals);
  const event = await deps.db.transaction(async (tx): Promise<ChainTransferEvent | null> => {
    if (await tx.chains.findTransfer(network.networkId, log.txHash, log.logIndex)) return null;
    const invoice = await tx.invoices.findInvoice(invoiceId);
    if (!invoice) return null;
    // value ÷ 10^decimals, exact, written with the invoice amount's fraction digits (10 USDC on 10.00: 10.00).
    const amount = formatReceived(invoice.amount, exact);
    const reason = token ? whyNotCredited(invoice, network, token.symbol, log.value) : anotherToken(network, log.contract);
    const credited = reason === null ? await addPaymentIn(tx, deps, invoiceId, creditedPayment(ctx, network, token?.symbol, amount, log)) : null;
    await tx.chains.insertTransfer({
      id: deps.random.uuid(),
      network_id: network.networkId,
      tx_hash: log.txHash,
      log_index: log.logIndex,
      block_number: log.blockNumber,
      invoice_id: invoiceId,
      contract_address: log.contract,
      token: token?.symbol ?? null,
      sender: log.from,
      amount,
      payment_id: credited?.payment.id ?? null,
      reason,
      created_at: deps.clock.now(),
    });
    const base = { type: 'chain.transfer', networkId: network.networkId, txHash: log.txHash, blockNumber: log.blockNumber, invoiceId, amount } as const;
    return credited
      ? { ...base, token: credited.payment.token, credited: true, status: credited.invoice.status }
      : { ...base, token: token?.symbol ?? log.contract, credited: false, reason: reason ?? '' };
  });
  if (event) deps.emit(event);
}

function creditedPayment(ctx: CreditContext, network: ChainInfo, symbol: string | undefined, amount: string, log: TransferLog) {
  // With one confirmation the payment is confirmed in its own block: created confirmed, as the test
  // helper's default is (no `invoice.payment_detected`, CONTRACT §6).
  return { amount, token: symbol, networkId: network.networkId, confirmed: ctx.confirmations <= 1, txHash: log.txHash };
}

/**
 * Why a transfer of an accepted token credits nothing, or null when it is a payment: nothing was
 * sent, or the invoice does not take this route (its lock, or the merchant's chains). Late and extra
 * payments are payments: CONTRACT §3 says what they do to an EXPIRED or PAID invoice.
 */
export function whyNotCredited(invoice: InvoiceRow, network: ChainInfo, symbol: string, value: bigint): string | null {
  if (value === 0n) return 'a transfer of 0 credits nothing';
  const offered = parseDepositAddresses(invoice.addresses).some((a) => a.networkId === network.networkId && a.tokens.some((t) => t.symbol === symbol));
  if (offered) return null;
  const where = `${network.chainName} (${network.networkId})`;
  if (invoice.lock_network_id !== null && invoice.lock_network_id !== network.networkId) {
    return `${where} is outside the invoice's route lock (networkId ${invoice.lock_network_id}${invoice.lock_token ? `, ${invoice.lock_token}` : ''})`;
  }
  if (invoice.lock_token !== null && invoice.lock_token !== symbol) return `${symbol} is outside the invoice's route lock (${invoice.lock_token})`;
  return `${where} is not one of the networks this invoice accepts (the merchant's chains)`;
}

function anotherToken(network: ChainInfo, contract: string): string {
  const accepted = network.tokens.map((t) => `${t.symbol} at ${t.contractAddress}`).join(', ');
  return `another token: ${contract} is not a token accepted on ${network.chainName} (${accepted})`;
}

const decimalsCache = new WeakMap<LocalChain, Map<string, number>>();

/**
 * Another token's `decimals()`, to show its amount; 0 (base units) when it has none. Cached per chain
 * and contract: a contract's decimals do not change.
 */
async function decimalsOf(chain: LocalChain, contract: string): Promise<number> {
  let cache = decimalsCache.get(chain);
  if (!cache) decimalsCache.set(chain, (cache = new Map()));
  const known = cache.get(contract);
  if (known !== undefined) return known;
  let decimals = 0;
  try {
    const answer = await chain.rpc.call('eth_call', [{ to: contract, data: '0x313ce567' }, 'latest']);
    if (typeof answer === 'string' && /^0x[0-9a-f]{64}$/i.test(answer)) {
      const n = Number(BigInt(answer));
      if (n <= 36) decimals = n;
    }
  } catch {}
  cache.set(contract, decimals);
  return decimals;
}

/** Confirms the payments whose block has `confirmations` blocks on `head`'s chain (its own included). */
async function confirmDue(ctx: CreditContext, network: ChainInfo, head: number): Promise<void> {
  const { deps } = ctx;
  for (const due of await deps.db.chains.unconfirmedUpTo(network.networkId, head - ctx.confirmations + 1)) {
    const paymentId = due.payment_id;
    if (paymentId === null) continue;
    try {
      const { invoice } = await deps.db.transaction((tx) => confirmPaymentIn(tx, deps, due.invoice_id, paymentId));
      deps.emit({ type: 'chain.confirmed', networkId: network.networkId, txHash: due.tx_hash, invoiceId: due.invoice_id, paymentId, status: invoice.status });
    } catch (error) {
      // Confirmed meanwhile through the test helper: nothing left to do.
      if (!(error instanceof ApiError && error.code === 'payment_already_confirmed')) throw error;
    }
  }
}
