import type { InvoiceRow } from '../../store/repos/invoices.js';
import type { MerchantRow } from '../../store/repos/merchants.js';
import { ApiError } from '../api-error.js';
import type { AppDeps, Principal } from '../route.js';

/**
 * An invoice the caller may act on: a partner's merchants' invoices in its environment, or a
 * merchant's own. Anything else is 404, never revealing that it exists elsewhere (CONTRACT §2).
 */
export async function invoiceFor(deps: AppDeps, principal: Principal, invoiceId: string): Promise<InvoiceRow> {
  const invoice = await deps.db.invoices.findInvoice(invoiceId);
  if (!invoice || !canSeeInvoice(principal, invoice)) {
    throw new ApiError(404, 'invoice_not_found', `No invoice ${invoiceId} for this ${principal.kind} in ${principal.environment}.`);
  }
  return invoice;
}

export function canSeeInvoice(principal: Principal, invoice: InvoiceRow): boolean {
  if (invoice.environment !== principal.environment) return false;
  return principal.kind === 'partner' ? invoice.partner_id === principal.partnerId : invoice.merchant_id === principal.merchantId;
}

/** The merchant behind a merchant key (always present: keys are deleted with their merchant). */
export async function merchantOfKey(deps: AppDeps, principal: Principal): Promise<MerchantRow> {
  const merchant = principal.merchantId ? await deps.db.merchants.findMerchant(principal.merchantId) : undefined;
  if (!merchant) throw new ApiError(401, 'unauthorized', 'The API key is not valid.');
  return merchant;
}
