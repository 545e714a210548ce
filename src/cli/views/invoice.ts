import type { Style } from '../output/style.js';
import type { Invoice, PartnerInvoice } from '../../contract/index.js';
import type { ResponseBody } from '../../contract/schemas/responses.js';

/** A payment, or a local chain's transfer that credits nothing (CONTRACT §14). */
type PaymentEntry = ResponseBody<'InvoicePayments'>['data'][number];
import type { WebhookEvent } from '../../contract/webhook-event.js';
import { esc } from '../output/escape.js';
import { keyValue, statusColour, table } from '../output/human.js';

/** An invoice as either variant of the API answers it (the partner's names its merchant). */
export type InvoiceData = Invoice | PartnerInvoice;

/** What the emulator's control plane adds to an invoice: its payments and events, oldest first. */
export interface InvoiceHistory {
  payments: PaymentEntry[];
  events: WebhookEvent[];
}

export function invoiceView(c: Style, inv: InvoiceData, history: InvoiceHistory | null = null): string {
  const head = keyValue(c, [
    ['id', inv.id],
    ['merchant', 'merchantId' in inv ? inv.merchantId : undefined],
    ['status', inv.status, (t) => statusColour(c, t)],
    ['environment', inv.environment],
    ['amount', inv.amount],
    ['received', inv.amountReceived],
    ['reference', inv.referenceId],
    ['expires', inv.expiresAt],
    ['checkout', inv.checkoutUrl],
  ]);
  const addresses = table(
    c,
    [
      { header: 'network', value: (a: InvoiceData['addresses'][number]) => `${a.chainName} (${a.networkId})` },
      { header: 'tokens', value: (a) => a.tokens.map((t) => t.symbol).join(', ') },
      { header: 'deposit address', value: (a) => a.depositAddress },
    ],
    inv.addresses,
  );
  if (!history) return `${head}\n\n${addresses}`;
  const payments = table(
    c,
    [
      { header: 'payment', value: (p: PaymentEntry) => p.id },
      { header: 'amount', value: (p) => `${p.amount} ${p.token}` },
      { header: 'network', value: (p) => String(p.networkId) },
      { header: 'confirmed', value: (p) => (p.credited ? (p.confirmedAt ?? 'not yet') : `not credited: ${p.reason ?? ''}`) },
    ],
    history.payments,
    'no payments',
  );
  const events = table(
    c,
    [
      { header: '#', value: (e: WebhookEvent) => String(e.data.sequence) },
      { header: 'event', value: (e) => e.type },
      { header: 'status', value: (e) => e.data.status, colour: (t) => statusColour(c, t) },
      { header: 'received', value: (e) => e.data.amountReceived },
      { header: 'at', value: (e) => e.createdAt },
    ],
    history.events,
    'no events',
  );
  return `${head}\n\n${addresses}\n\n${c.bold('Payments')}\n${payments}\n\n${c.bold('Events')}\n${events}`;
}

export function invoiceTable(c: Style, list: { data: InvoiceData[]; hasMore: boolean }): string {
  const rows = table(
    c,
    [
      { header: 'id', value: (i: InvoiceData) => i.id },
      { header: 'status', value: (i) => i.status, colour: (t) => statusColour(c, t) },
      { header: 'amount', value: (i) => i.amount },
      { header: 'received', value: (i) => i.amountReceived },
      { header: 'reference', value: (i) => i.referenceId },
      { header: 'expires', value: (i) => i.expiresAt },
    ],
    list.data,
    'no invoices',
  );
  return list.hasMore ? `${rows}\n${c.dim(`more: --starting-after ${esc(list.data.at(-1)!.id)}`)}` : rows;
}
