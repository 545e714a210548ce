import { INTEGRATION_STATUSES } from '../../../contract/enums.js';
import type { Environment } from '../../../domain/environment.js';
import { StoreConflictError } from '../../conflicts.js';
import type { ListPage, MerchantRow, NewMerchant } from '../../repos/merchants.js';
import { constraintOf, holdsNul, oneOf, type PgHandle, sqlState } from './handle.js';

// PostgreSQL's merchants: the same functions as ../../repos/merchants.ts.

/**
 * Inserts a merchant. The caller checked findMerchantIdByTenant first (409 when taken); a concurrent
 * create of the same tenant can still pass that check, and then the unique index merchants_tenant
 * refuses this insert: StoreConflictError('external_tenant_id'), which the caller answers with the
 * same 409 (its transaction rolls back, nothing of it is kept).
 */
export async function insertMerchant(db: PgHandle, row: NewMerchant): Promise<void> {
  try {
    await db.insertInto('merchants').values(row).execute();
  } catch (error) {
    if (sqlState(error) === '23505' && constraintOf(error) === 'merchants_tenant') throw new StoreConflictError('external_tenant_id');
    throw error;
  }
}

/** Any merchant by id, whoever owns it: callers check ownership (and answer 404 if it differs). */
export async function findMerchant(db: PgHandle, id: string): Promise<MerchantRow | undefined> {
  if (holdsNul(id)) return undefined;
  return db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findMerchantIdByTenant(db: PgHandle, partnerId: string, environment: Environment, externalTenantId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select('id')
    .where('partner_id', '=', partnerId)
    .where('environment', '=', environment)
    .where('external_tenant_id', '=', externalTenantId)
    .executeTakeFirst();
  return row?.id;
}

export async function setIntegrationStatus(db: PgHandle, id: string, status: string, now: number): Promise<void> {
  const integration_status = oneOf(INTEGRATION_STATUSES, status, 'integration_status');
  await db.updateTable('merchants').set({ integration_status, updated_at: now }).where('id', '=', id).execute();
}

export async function setMerchantNetworks(db: PgHandle, id: string, networkIds: number[] | null, now: number): Promise<void> {
  await db
    .updateTable('merchants')
    .set({ network_ids: networkIds ? JSON.stringify(networkIds) : null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Newest first. Fetches one extra row to tell whether there is a next page. */
export async function listMerchants(db: PgHandle, partnerId: string, environment: Environment, page: ListPage): Promise<MerchantRow[]> {
  let q = db.selectFrom('merchants').selectAll().where('partner_id', '=', partnerId).where('environment', '=', environment);
  if (page.beforeSeq !== undefined) q = q.where('seq', '<', page.beforeSeq);
  return q
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .execute();
}
