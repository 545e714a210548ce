import type { AttemptRow, DeliveryRow } from '../store/repos/deliveries.js';
import type { InvoiceRow } from '../store/repos/invoices.js';
import type { MerchantRow } from '../store/repos/merchants.js';
import type { PaymentRow } from '../store/repos/payments.js';
import type { WebhookConfigRow } from '../store/repos/webhook-configs.js';

/** Rows become API shapes here, and only here: field names and formats of the interface document. */
export const iso = (ms: number): string => new Date(ms).toISOString();

export function presentMerchant(row: MerchantRow, baseUrl: string) {
  return {
    merchantId: row.id,
    organizationId: row.organization_id,
    partnerId: row.partner_id,
    externalTenantId: row.external_tenant_id,
    name: row.name,
    email: row.email,
    integrationStatus: row.integration_status,
    dashboardAccess: row.dashboard_access === 1,
    autoPayoutEnabled: row.auto_payout_enabled === 1,
    bindUrl: `${baseUrl}/bind/${row.id}`,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export type InvoiceVariant = 'partner' | 'merchant';

/** Every invoice field but `addresses`, in the interface document's order. */
function invoiceHead(row: InvoiceRow, variant: InvoiceVariant, baseUrl: string) {
  return {
    id: row.id,
    // The partner variant carries merchantId; the merchant variant does not (interface §2.2).
    ...(variant === 'partner' ? { merchantId: row.merchant_id } : {}),
    status: row.status,
    environment: row.environment,
    amount: row.amount,
    amountReceived: row.amount_received,
    referenceId: row.reference_id,
    checkoutUrl: `${baseUrl}/checkout/${row.id}`,
    expiresAt: iso(row.expires_at),
  };
}

export function presentInvoice(row: InvoiceRow, variant: InvoiceVariant, baseUrl: string) {
  return { ...invoiceHead(row, variant, baseUrl), addresses: JSON.parse(row.addresses) as unknown[] };
}

/**
 * The same invoice, serialised: the stored `addresses` JSON is spliced in as is rather than parsed
 * and stringified again (it is most of the bytes, and every create and read returns it).
 */
export function presentInvoiceJson(row: InvoiceRow, variant: InvoiceVariant, baseUrl: string): string {
  return `${JSON.stringify(invoiceHead(row, variant, baseUrl)).slice(0, -1)},"addresses":${row.addresses}}`;
}

export function presentWebhookConfig(row: WebhookConfigRow) {
  return {
    id: row.id,
    environment: row.environment,
    url: row.url,
    customHeaders: JSON.parse(row.custom_headers) as Record<string, string>,
    enabled: row.enabled === 1,
    secretConfigured: row.secret.length > 0,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentPayment(row: PaymentRow) {
  return {
    id: row.id,
    invoiceId: row.invoice_id,
    networkId: row.network_id,
    token: row.token,
    amount: row.amount,
    txHash: row.tx_hash,
    confirmed: row.confirmed === 1,
    createdAt: iso(row.created_at),
    confirmedAt: row.confirmed_at === null ? null : iso(row.confirmed_at),
  };
}

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** CONTRACT §5's delivery record. */
export function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    invoiceId: row.invoice_id,
    merchantId: row.merchant_id,
    environment: row.environment,
    url: row.url,
    // Extension (CONTRACT §5 does not list it): the partner's webhook, or `svc webhook listen`'s listener.
    target: row.target,
    status: row.status,
    attemptCount: row.attempt_count,
    lastAttemptAt: isoOrNull(row.last_attempt_at),
    nextAttemptAt: isoOrNull(row.next_attempt_at),
    lastResponseStatus: row.last_response_status,
    lastError: row.last_error,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** The single view adds the exact payload and every attempt. */
export function presentDeliveryDetail(row: DeliveryRow, payload: string, attempts: AttemptRow[]) {
  return {
    ...presentDelivery(row),
    payload,
    attempts: attempts.map((a) => ({
      number: a.number,
      trigger: a.trigger,
      startedAt: iso(a.started_at),
      durationMs: a.duration_ms,
      responseStatus: a.response_status,
      responseBody: a.response_body,
      error: a.error,
    })),
  };
}
