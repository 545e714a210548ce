import { planTransfer } from '../../../chains/plan.js';
import { sendTokenTransfer, TransferRefused } from '../../../chains/transfer.js';
import { addAmounts, compareAmounts, isValidAmount, remainingAmount } from '../../../domain/money.js';
import { UsageError, UserError } from '../../../errors.js';
import type { ThrowingClient } from '../../../client/throwing.js';
import { getInvoiceAs } from '../../invoice-calls.js';
import { call, connect, controlPlane, readerFor } from '../../service.js';
import type { Handler } from '../../spec.js';
import { chainPaymentView, NO_CHAINS } from '../../views/chain.js';
import type { payChainSpec } from './index.js';

/** How long the emulator may take to see a mined transfer (it sees it within milliseconds). */
const SEEN_WITHIN_MS = 15_000;

/**
 * `svc chain pay <invoiceId>` (CONTRACT §14): plans the transfer from the invoice's routes and what is
 * left to pay, signs it with a funded account's key and sends it through the chain's `rpcUrl` (the
 * control token with it, when there is one), as an integrator's wallet would; waits for the emulator
 * to credit it, then mines the blocks its confirmation needs unless `--no-confirm`.
 */
export const payChainCommand: Handler<typeof payChainSpec> = async ({ args, options }, ctx) => {
  if (options.amount !== undefined && !isValidAmount(options.amount)) {
    throw new UsageError(`--amount must be a positive decimal such as 25.00 (at most 6 decimals), not "${options.amount}"`, '--amount');
  }
  const { client, target } = await connect(ctx);
  const chains = (await controlPlane(ctx, target, 'Listing the local chains', client.listChains())).data.data;
  if (chains.length === 0) throw new UserError(NO_CHAINS, 'no_local_chains');
  const invoice = (await call(ctx, 'Fetching invoice', getInvoiceAs(client, readerFor(target), args.invoiceId))).data;
  if (invoice.environment !== 'test') throw new UserError(`invoice ${invoice.id} is a live invoice: local chains pay test invoices only`, 'test_mode_only');
  const amount = options.amount ?? (await leftToPay(client, invoice));
  const plan = planTransfer({ addresses: invoice.addresses, networkId: options.network, token: options.token, amount, account: options.account });
  if ('refused' in plan) {
    const flag = plan.param === 'networkId' ? '--network' : `--${plan.param}`;
    throw new UsageError(`${flag}: ${plan.refused}`, flag);
  }
  const chain = chains.find((c) => c.networkId === plan.networkId);
  if (!chain) throw new UserError(`network ${plan.networkId} has no local chain here`, 'chain_not_found');
  const txHash = await call(
    ctx,
    `Sending ${plan.amount} ${plan.token} on ${plan.chainName}`,
    sendTokenTransfer({
      rpcUrl: chain.rpcUrl,
      chainId: chain.networkId,
      token: plan.contractAddress,
      privateKey: plan.account.privateKey,
      to: plan.depositAddress,
      units: plan.units,
      ...(target.controlToken ? { headers: { authorization: `Bearer ${target.controlToken}` } } : {}),
    }).catch((error: unknown) => {
      if (error instanceof TransferRefused) throw new UserError(`the transfer was refused: ${error.message}`, 'transfer_refused');
      throw error;
    }),
  );
  const seen = await call(ctx, 'Waiting for the emulator to see it', seenPayment(client, invoice.id, txHash));
  if (options.confirm && seen.credited && !seen.confirmed && chain.confirmations > 1) {
    await controlPlane(
      ctx,
      target,
      'Mining its confirmations',
      client.mineChain({ params: { networkId: String(chain.networkId) }, body: { blocks: chain.confirmations - 1 } }),
    );
  }
  const after = (await call(ctx, 'Fetching invoice', getInvoiceAs(client, readerFor(target), invoice.id))).data;
  const data = {
    txHash,
    networkId: plan.networkId,
    token: plan.token,
    amount: plan.amount,
    from: plan.account.address,
    to: plan.depositAddress,
    credited: seen.credited,
    ...(seen.reason === undefined ? {} : { reason: seen.reason }),
    invoice: after,
  };
  return { data, human: (c) => chainPaymentView(c, data) };
};

/** What is left once the confirmed and the confirming payments are counted (the payments list is the control plane's). */
async function leftToPay(client: ThrowingClient, invoice: { id: string; amount: string; amountReceived: string }): Promise<string> {
  const payments = (await client.listInvoicePayments({ params: { id: invoice.id } })).data.data;
  const confirming = payments.filter((p) => p.credited && !p.confirmed).reduce((sum, p) => addAmounts(sum, p.amount), '0');
  const left = remainingAmount(invoice.amount, addAmounts(invoice.amountReceived, confirming));
  if (compareAmounts(left, '0') <= 0) throw new UsageError(`invoice ${invoice.id} has nothing left to pay: pass --amount to pay more`, '--amount');
  return left;
}

/** The invoice's entry for this transaction once the emulator processed its block. */
async function seenPayment(client: ThrowingClient, invoiceId: string, txHash: string) {
  const until = Date.now() + SEEN_WITHIN_MS;
  for (;;) {
    const entry = (await client.listInvoicePayments({ params: { id: invoiceId } })).data.data.find((p) => p.txHash === txHash);
    if (entry) return entry;
    if (Date.now() > until) throw new UserError(`the emulator did not see transaction ${txHash} within ${SEEN_WITHIN_MS / 1000} s`, 'transfer_not_seen');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
