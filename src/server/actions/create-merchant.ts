import type { MerchantRow } from '../../store/repos/merchants.js';
import { ApiError } from '../api-error.js';
import type { AppDeps, Principal } from '../route.js';
import type { RequestOf } from '../../contract/schemas/requests.js';

/**
 * A sub-merchant in the partner key's environment (CONTRACT §1), PENDING until its onboarding is
 * completed at bindUrl. One merchant per externalTenantId per partner and environment: the check
 * and the insert are one transaction.
 */
export function createMerchant(deps: AppDeps, principal: Principal, body: RequestOf<'CreateMerchantRequest'>): Promise<MerchantRow> {
  return deps.db.transaction(async (tx) => {
    const { clock } = deps;
    if (await tx.merchants.findMerchantIdByTenant(principal.partnerId, principal.environment, body.externalTenantId)) {
      throw new ApiError(
        409,
        'external_tenant_id_taken',
        `A merchant with externalTenantId "${body.externalTenantId}" already exists for this partner; repeat the original request with its Idempotency-Key to get it back.`,
        'externalTenantId',
      );
    }
    const now = clock.now();
    // v7, like invoices and deliveries: a newest-first list orders ties of createdAt by id (CONTRACT §12).
    const id = deps.random.uuidv7(now);
    await tx.merchants.insertMerchant({
      id,
      partner_id: principal.partnerId,
      environment: principal.environment,
      organization_id: deps.random.uuid(),
      external_tenant_id: body.externalTenantId,
      name: body.name,
      email: body.email,
      integration_status: 'PENDING',
      dashboard_access: 0,
      auto_payout_enabled: 0,
      network_ids: null,
      created_at: now,
      updated_at: now,
    });
    return (await tx.merchants.findMerchant(id))!;
  });
}

/** A merchant the caller may see: the partner's own, in the key's environment; 404 otherwise. */
export async function merchantForPartner(deps: AppDeps, principal: Principal, merchantId: string, param?: string): Promise<MerchantRow> {
  const merchant = await deps.db.merchants.findMerchant(merchantId);
  if (!merchant || merchant.partner_id !== principal.partnerId || merchant.environment !== principal.environment) {
    throw new ApiError(404, 'merchant_not_found', `No merchant ${merchantId} for this partner in ${principal.environment}.`, param);
  }
  return merchant;
}
