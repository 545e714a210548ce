import type { Delivery, DeliveryDetail, Invoice, Merchant, PartnerInvoice, Payment, WebhookConfiguration } from '../contract/schemas/responses.js';
import type { Json } from '../contract/types.js';
import type { ResponseBody } from '../contract/schemas/responses.js';

/** An entry of `GET /__emulator/invoices/{id}/payments`. */
type InvoicePaymentEntry = ResponseBody<'InvoicePayments'>['data'][number];
import { parseCustomHeaders, parseDepositAddresses } from '../store/json-columns.js';
import type { AttemptRow, DeliveryRow } from '../store/repos/deliveries.js';
import type { InvoiceRow } from '../store/repos/invoices.js';
import type { MerchantRow } from '../store/repos/merchants.js';
import type { PaymentRow } from '../store/repos/payments.js';
import type { ChainTransferRow } from '../store/repos/chains.js';
import type { WebhookConfigRow } from '../store/repos/webhook-configs.js';

/**
 * Rows become API shapes here, and only here. Each presenter returns the contract's response type
 * (src/contract/schemas/), so a field added to or missing from a response is a compile error here.
 * Closed lists (status, integration status, event type) are typed in the table (store/schema.ts);
 * JSON columns are parsed by store/json-columns.ts, which checks them (a restored file is untrusted).
 */
export const iso = (ms: number): string => new Date(ms).toISOString();

export function presentMerchant(row: MerchantRow, baseUrl: string): Merchant {
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

type InvoiceOf<V extends InvoiceVariant> = V extends 'partner' ? PartnerInvoice : Invoice;
/** Every invoice field but `addresses`. */
type InvoiceHead<V extends InvoiceVariant> = Omit<InvoiceOf<V>, 'addresses'>;

/**
 * Every invoice field but `addresses`, in the interface document's order; the partner variant
 * carries merchantId right after id, the merchant variant does not (interface §2.2). Two literals,
 * not a spread: this runs on every create and read (bench #1, #2). Overloads rather than a generic
 * `V`: the compiler narrows a literal argument, never a type parameter, so a generic needed a cast.
 */
function invoiceHead(row: InvoiceRow, variant: 'partner', baseUrl: string): InvoiceHead<'partner'>;
function invoiceHead(row: InvoiceRow, variant: 'merchant', baseUrl: string): InvoiceHead<'merchant'>;
function invoiceHead(row: InvoiceRow, variant: InvoiceVariant, baseUrl: string): InvoiceHead<'partner'> | InvoiceHead<'merchant'> {
  if (variant === 'partner') {
    return {
      id: row.id,
      merchantId: row.merchant_id,
      status: row.status,
      environment: row.environment,
      amount: row.amount,
      amountReceived: row.amount_received,
      referenceId: row.reference_id,
      checkoutUrl: `${baseUrl}/checkout/${row.id}`,
      expiresAt: iso(row.expires_at),
    };
  }
  return {
    id: row.id,
    status: row.status,
    environment: row.environment,
    amount: row.amount,
    amountReceived: row.amount_received,
    referenceId: row.reference_id,
    checkoutUrl: `${baseUrl}/checkout/${row.id}`,
    expiresAt: iso(row.expires_at),
  };
}

export function presentInvoice(row: InvoiceRow, variant: 'partner', baseUrl: string): PartnerInvoice;
export function presentInvoice(row: InvoiceRow, variant: 'merchant', baseUrl: string): Invoice;
export function presentInvoice(row: InvoiceRow, variant: InvoiceVariant, baseUrl: string): PartnerInvoice | Invoice;
export function presentInvoice(row: InvoiceRow, variant: InvoiceVariant, baseUrl: string): PartnerInvoice | Invoice {
  // The stored `addresses` column is the contract's Address[] as JSON, written by createInvoice.
  const addresses = parseDepositAddresses(row.addresses);
  return variant === 'partner' ? { ...invoiceHead(row, 'partner', baseUrl), addresses } : { ...invoiceHead(row, 'merchant', baseUrl), addresses };
}

/**
 * The same invoice, serialised: the stored `addresses` JSON is spliced in as is rather than parsed
 * and stringified again (it is most of the bytes, and every create and read returns it). The head is
 * typed against the contract; the splice is held to `presentInvoice` byte for byte by a unit test.
 */
export function presentInvoiceJson(row: InvoiceRow, variant: 'partner', baseUrl: string): Json<PartnerInvoice>;
export function presentInvoiceJson(row: InvoiceRow, variant: 'merchant', baseUrl: string): Json<Invoice>;
export function presentInvoiceJson(row: InvoiceRow, variant: InvoiceVariant, baseUrl: string): Json<PartnerInvoice> | Json<Invoice>;
export function presentInvoiceJson(row: InvoiceRow, variant: InvoiceVariant, baseUrl: string): Json<PartnerInvoice> | Json<Invoice> {
  const head = variant === 'partner' ? invoiceHead(row, 'partner', baseUrl) : invoiceHead(row, 'merchant', baseUrl);
  // The brand is the one cast: Json<T> exists so that only this splice can claim to be an invoice's text.
  return `${JSON.stringify(head).slice(0, -1)},"addresses":${row.addresses}}` as Json<PartnerInvoice>;
}

export function presentWebhookConfig(row: WebhookConfigRow): WebhookConfiguration {
  return {
    id: row.id,
    environment: row.environment,
    url: row.url,
    customHeaders: parseCustomHeaders(row.custom_headers),
    enabled: row.enabled === 1,
    secretConfigured: row.secret.length > 0,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentPayment(row: PaymentRow): Payment {
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

/** A local chain's transfer that credits nothing (CONTRACT §14), among an invoice's payments. */
export function presentUncreditedTransfer(row: ChainTransferRow): InvoicePaymentEntry {
  return {
    id: row.id,
    invoiceId: row.invoice_id,
    networkId: row.network_id,
    token: row.token ?? row.contract_address,
    amount: row.amount,
    txHash: row.tx_hash,
    confirmed: false,
    createdAt: iso(row.created_at),
    confirmedAt: null,
    credited: false,
    reason: row.reason ?? 'not credited',
  };
}

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** CONTRACT §5's delivery record. */
export function presentDelivery(row: DeliveryRow): Delivery {
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
export function presentDeliveryDetail(row: DeliveryRow, payload: string, attempts: AttemptRow[]): DeliveryDetail {
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
      chaos: a.chaos,
    })),
  };
}
