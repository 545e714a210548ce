/**
 * A strict consumer of the types openapi-typescript generates from `svc openapi`'s document
 * (`./schema.js` is generated next to this file by test/integration/openapi-tools.test.ts). It uses
 * them as an integrator would, without a cast; compiled with strict, noUncheckedIndexedAccess and
 * skipLibCheck: false. A weaker document (a `string` error code, an undeclared status, a webhook
 * without a schema) makes it fail to compile.
 */
import type { components, operations, paths, webhooks } from './schema.js';

type Created = paths['/v1/partner/invoices']['post']['responses'][201]['content']['application/json'];
type Replayed = paths['/v1/partner/invoices']['post']['responses'][200]['content']['application/json'];
type CreateBody = NonNullable<paths['/v1/partner/invoices']['post']['requestBody']>['content']['application/json'];
type CreateError = operations['createPartnerInvoice']['responses'][400]['content']['application/json'];
type NotFound = operations['getPartnerInvoice']['responses'][404]['content']['application/json'];
type Busy = operations['createPartnerInvoice']['responses'][503]['content']['application/json'];
type Delivery = operations['getDelivery']['responses'][200]['content']['application/json'];
type DeliveryPath = operations['resendDelivery']['parameters']['path'];
type Health = operations['getHealth']['responses'][503]['content']['application/json'];
type Event = components['schemas']['WebhookEvent'];
type PaidEvent = NonNullable<webhooks['invoice.paid']['post']['requestBody']>['content']['application/json'];
type Signature = webhooks['invoice.paid']['post']['parameters']['header']['X-Service-Signature'];

const assertNever = (value: never): never => {
  throw new Error(`unexpected ${String(value)}`);
};

export const body: CreateBody = { merchantId: '6f1c1f5e-9f0a-4c55-9d3b-5d0e8f1a2b3c', amount: '25.00', networkId: 84532, token: 'USDC' };

/** The same shape whether created or replayed, and a typed status and addresses. */
export function summary(invoice: Created | Replayed): string {
  const first = invoice.addresses[0];
  const token = first?.tokens[0]?.symbol ?? 'none';
  const open: boolean = invoice.status === 'CREATED' || invoice.status === 'PARTIALLY_PAID';
  return `${invoice.id} for ${invoice.merchantId}: ${invoice.amount} (${invoice.amountReceived} received), ${open ? 'open' : 'closed'}, ${token} at ${invoice.checkoutUrl}`;
}

/** Every 400 code of a create, handled: the union is closed, so a new code is a compile error here. */
export function explain(e: CreateError): string {
  const { code, param } = e.error;
  switch (code) {
    case 'validation_failed':
    case 'route_not_available':
      return `fix ${param ?? 'the body'}: ${e.error.message}`;
    case 'idempotency_key_required':
    case 'idempotency_key_invalid':
      return 'send a fresh Idempotency-Key';
    case 'invalid_json':
    case 'invalid_request':
    case 'environment_not_allowed':
      return 'send a JSON object without environment';
    default:
      return assertNever(code);
  }
}

export const missing = (e: NotFound): 'invoice_not_found' => e.error.code;
export const retry = (e: Busy): boolean => e.error.code === 'database_busy';
export const degraded = (h: Health): string | undefined => (h.status === 'degraded' ? h.reason : undefined);
export const resendPath = (p: DeliveryPath): string => `/v1/partner/webhook/deliveries/${p.id}/resend`;
export const lastAttempt = (d: Delivery): string => d.attempts.at(-1)?.trigger ?? d.status;
export const signed = (header: Signature): boolean => header.startsWith('t=');

/** Webhook events are a union on `type`; each type fixes its status. */
export function handle(event: Event): string {
  switch (event.type) {
    case 'invoice.created':
      return `${event.data.invoiceId} created (${event.data.token === null ? 'no payment yet' : 'impossible'})`;
    case 'invoice.payment_detected':
    case 'invoice.partially_paid':
    case 'invoice.overpaid':
    case 'invoice.paid_late':
      return `${event.type} ${event.data.token} ${event.data.amountReceived}`;
    case 'invoice.paid':
      return fulfil(event);
    case 'invoice.expired':
      return `${event.id} expired (${event.data.token ?? 'unpaid'})`;
    default:
      return assertNever(event);
  }
}

function fulfil(event: PaidEvent): string {
  const status: 'PAID' = event.data.status;
  return `fulfil ${event.data.invoiceId} (${status}, sequence ${event.data.sequence}, tenant ${event.data.externalTenantId})`;
}
