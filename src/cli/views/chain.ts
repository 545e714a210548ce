import type { Style } from '../output/style.js';
import type { ResponseBody } from '../../contract/schemas/responses.js';
import { keyValue, statusColour, table } from '../output/human.js';
import { invoiceView, type InvoiceData } from './invoice.js';

export type LocalChainData = ResponseBody<'LocalChain'>;

/** What `svc chain …` says when the emulator runs no chains. */
export const NO_CHAINS = 'the emulator runs no local chains: start it with svc dev --chains (or svc exec --chains)';

/** The chains, one line each; then the funded account 0 to pay from. */
export function chainsView(c: Style, chains: LocalChainData[]): string {
  if (!chains.length) return c.dim(`(${NO_CHAINS})`);
  const list = table(
    c,
    [
      { header: 'network', value: (x: LocalChainData) => x.networkId },
      { header: 'name', value: (x) => x.name },
      { header: 'block', value: (x) => x.blockNumber },
      { header: 'confirmations', value: (x) => x.confirmations },
      { header: 'rpc url', value: (x) => x.rpcUrl },
    ],
    chains,
  );
  const first = chains[0]!;
  const token = first.tokens[0];
  const account = first.accounts[0];
  const notes = keyValue(c, [
    ['token', token ? `${token.symbol}, ${token.decimals} decimals, at each network's USDC address` : undefined],
    ['account 0', account ? `${account.address} (private key ${account.privateKey})` : undefined],
  ]);
  return `${list}\n\n${notes}\n${c.dim(`Each of the ${first.accounts.length} accounts holds 10,000 ETH and 1,000,000 USDC: svc chain list --json lists their keys.`)}`;
}

export interface ChainPaymentData {
  txHash: string;
  networkId: number;
  token: string;
  amount: string;
  from: string;
  to: string;
  credited: boolean;
  reason?: string;
  invoice: InvoiceData;
}

/** The transfer sent, and the invoice after it. */
export function chainPaymentView(c: Style, p: ChainPaymentData): string {
  const head = keyValue(c, [
    ['tx hash', p.txHash],
    ['sent', `${p.amount} ${p.token} on ${p.networkId}, from ${p.from} to ${p.to}`],
    p.credited ? ['credited', 'yes'] : ['credited', `no: ${p.reason ?? ''}`, c.yellow],
    ['status', p.invoice.status, (t) => statusColour(c, t)],
  ]);
  return `${head}\n\n${c.bold('Invoice')}\n${invoiceView(c, p.invoice)}`;
}
