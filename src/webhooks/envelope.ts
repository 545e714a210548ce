import type { Environment, InvoiceEventType, InvoiceStatus } from '../contract/enums.js';
import type { WebhookEvent } from '../contract/webhook-event.js';

// The lists and the envelope's shape live in the contract (src/contract/); re-exported for their users.
export { INVOICE_EVENT_TYPES, type InvoiceEventType, type InvoiceStatus } from '../contract/enums.js';
import { isWebhookEvent } from './event-guard.js';

export type { WebhookEvent } from '../contract/webhook-event.js';

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

/** The envelope with type, status and token as independent fields: every field, no correlation. */
type LooseEvent = Omit<WebhookEvent, 'type' | 'data'> & {
  type: InvoiceEventType;
  data: Omit<WebhookEvent['data'], 'status' | 'token'> & { status: InvoiceStatus; token: string | null };
};

/**
 * The envelope in the interface document's field order; the id is `<invoiceId>-<sequence>`. The
 * contract's WebhookEvent ties each type to its status and token (CONTRACT §4); the state machine
 * (domain/invoice-state.ts) keeps them together, which the compiler cannot follow from separate
 * fields: `isWebhookEvent` checks it (a mismatch is a bug in svc, thrown before anything is written).
 */
export function buildEnvelope(e: EnvelopeInput): WebhookEvent {
  const envelope: LooseEvent = {
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
  if (!isWebhookEvent(envelope)) throw new Error(`svc: ${e.type} with status ${e.status} and token ${e.token} is not an envelope the contract allows`);
  return envelope;
}
