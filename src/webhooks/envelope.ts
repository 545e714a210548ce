import type { Environment } from '../domain/environment.js';

/** Event types of CONTRACT §4, in the order they can first occur. */
export const INVOICE_EVENT_TYPES = [
  'invoice.created',
  'invoice.payment_detected',
  'invoice.partially_paid',
  'invoice.paid',
  'invoice.overpaid',
  'invoice.expired',
  'invoice.paid_late',
] as const;

export type InvoiceEventType = (typeof INVOICE_EVENT_TYPES)[number];

export type InvoiceStatus = 'CREATED' | 'CONFIRMING' | 'PARTIALLY_PAID' | 'PAID' | 'EXPIRED';

/** The webhook event envelope of the interface document §2.4. */
export interface WebhookEvent {
  /** `<invoiceId>-<sequence>`: the key receivers deduplicate on. */
  id: string;
  type: InvoiceEventType;
  createdAt: string;
  environment: Environment;
  partnerId: string;
  data: {
    invoiceId: string;
    merchantId: string;
    externalTenantId: string;
    status: InvoiceStatus;
    amount: string;
    amountReceived: string;
    /** Symbol of the payment that caused the event; null when no payment did. */
    token: string | null;
    sequence: number;
  };
}

export interface EnvelopeInput {
  invoiceId: string;
  sequence: number;
  type: InvoiceEventType;
  createdAt: string;
  environment: Environment;
  partnerId: string;
  merchantId: string;
  externalTenantId: string;
  status: InvoiceStatus;
  amount: string;
  amountReceived: string;
  token: string | null;
}

/** The envelope in the interface document's field order; the id is `<invoiceId>-<sequence>`. */
export function buildEnvelope(e: EnvelopeInput): WebhookEvent {
  return {
    id: `${e.invoiceId}-${e.sequence}`,
    type: e.type,
    createdAt: e.createdAt,
    environment: e.environment,
    partnerId: e.partnerId,
    data: {
      invoiceId: e.invoiceId,
      merchantId: e.merchantId,
      externalTenantId: e.externalTenantId,
      status: e.status,
      amount: e.amount,
      amountReceived: e.amountReceived,
      token: e.token,
      sequence: e.sequence,
    },
  };
}
