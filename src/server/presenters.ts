import type { InvoiceRow } from '../store/repos/invoices.js';
import type { MerchantRow } from '../store/repos/merchants.js';
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

/** The partner variant carries merchantId; the merchant variant does not (interface §2.2). */
export function presentInvoice(row: InvoiceRow, variant: InvoiceVariant, baseUrl: string) {
  const base = {
    id: row.id,
    ...(variant === 'partner' ? { merchantId: row.merchant_id } : {}),
    status: row.status,
    environment: row.environment,
    amount: row.amount,
    amountReceived: row.amount_received,
    referenceId: row.reference_id,
    checkoutUrl: `${baseUrl}/checkout/${row.id}`,
    expiresAt: iso(row.expires_at),
    addresses: JSON.parse(row.addresses) as unknown[],
  };
  return base;
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
