import type { Style } from '../output/style.js';
import type { Payment, ResponseBody } from '../../contract/index.js';
import { chainByNetworkId } from '../../domain/chains.js';
import { keyValue } from '../output/human.js';
import { invoiceView, type InvoiceData } from './invoice.js';

export type PaymentData = Payment;

/** What the test helpers answer: the payment and the invoice after it. */
export type PaymentResult = ResponseBody<'PaymentResult'>;

/** `Base Sepolia (84532)`: the name from the invoice's addresses, else the chain registry. */
export function networkLabel(invoice: Pick<InvoiceData, 'addresses' | 'environment'>, networkId: number): string {
  const name = invoice.addresses.find((a) => a.networkId === networkId)?.chainName ?? chainByNetworkId(invoice.environment, networkId)?.chainName;
  return name ? `${name} (${networkId})` : `network ${networkId}`;
}

export function paymentView(c: Style, result: PaymentResult): string {
  const p = result.payment;
  const head = keyValue(c, [
    ['payment', p.id],
    ['amount', `${p.amount} ${p.token}`],
    ['network', networkLabel(result.invoice, p.networkId)],
    p.confirmed ? ['confirmed', `yes, ${p.confirmedAt}`, c.green] : ['confirmed', 'no: `svc invoices confirm` confirms it', c.yellow],
    ['tx hash', p.txHash],
  ]);
  return `${head}\n\n${c.bold('Invoice')}\n${invoiceView(c, result.invoice)}`;
}
