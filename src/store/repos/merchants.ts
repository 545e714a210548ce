import type { Insertable, Selectable } from 'kysely';
import type { Environment } from '../../domain/environment.js';
import { StoreConflictError } from '../conflicts.js';
import type { Runner } from '../engine.js';
import { param, prepared, preparedByShape } from '../query.js';
import type { MerchantsTable } from '../schema.js';
import { holdsNul } from './lookups.js';

export type MerchantRow = Selectable<MerchantsTable>;
export type NewMerchant = Omit<Insertable<MerchantsTable>, 'seq'>;

const insert = prepared((qb) =>
  qb
    .insertInto('merchants')
    .values({
      id: param('id'),
      partner_id: param('partner_id'),
      environment: param('environment'),
      organization_id: param('organization_id'),
      external_tenant_id: param('external_tenant_id'),
      name: param('name'),
      email: param('email'),
      integration_status: param('integration_status'),
      dashboard_access: param('dashboard_access'),
      auto_payout_enabled: param('auto_payout_enabled'),
      network_ids: param('network_ids'),
      created_at: param('created_at'),
      updated_at: param('updated_at'),
    })
    // The unique index merchants_tenant: a tenant taken meanwhile inserts nothing (below).
    .onConflict((oc) => oc.columns(['partner_id', 'environment', 'external_tenant_id']).doNothing()),
);
const byId = prepared((qb) => qb.selectFrom('merchants').selectAll().where('id', '=', param('id')));
const byTenant = prepared((qb) =>
  qb
    .selectFrom('merchants')
    .select('id')
    .where('partner_id', '=', param('partner_id'))
    .where('environment', '=', param('environment'))
    .where('external_tenant_id', '=', param('external_tenant_id')),
);
const setStatus = prepared((qb) =>
  qb
    .updateTable('merchants')
    .set({ integration_status: param('status'), updated_at: param('now') })
    .where('id', '=', param('id')),
);
const setNetworks = prepared((qb) =>
  qb
    .updateTable('merchants')
    .set({ network_ids: param('network_ids'), updated_at: param('now') })
    .where('id', '=', param('id')),
);

/**
 * Inserts a merchant. The caller checked findMerchantIdByTenant first (409 when taken); a concurrent
 * create of the same tenant through another replica can still pass that check, and then the unique
 * index merchants_tenant leaves this insert out: StoreConflictError('external_tenant_id'), which the
 * caller answers with the same 409 (its transaction rolls back, nothing of it is kept).
 */
export async function insertMerchant(db: Runner, row: NewMerchant): Promise<void> {
  if ((await db.run(insert, { ...row })) === 0) throw new StoreConflictError('external_tenant_id');
}

/** Any merchant by id, whoever owns it: callers check ownership (and answer 404 if it differs). */
export async function findMerchant(db: Runner, id: string): Promise<MerchantRow | undefined> {
  if (holdsNul(id)) return undefined;
  return db.get(byId, { id });
}

export async function findMerchantIdByTenant(db: Runner, partnerId: string, environment: Environment, externalTenantId: string): Promise<string | undefined> {
  if (holdsNul(externalTenantId)) return undefined;
  return (await db.get(byTenant, { partner_id: partnerId, environment, external_tenant_id: externalTenantId }))?.id;
}

export async function setIntegrationStatus(db: Runner, id: string, status: string, now: number): Promise<void> {
  await db.run(setStatus, { id, status, now });
}

export async function setMerchantNetworks(db: Runner, id: string, networkIds: number[] | null, now: number): Promise<void> {
  await db.run(setNetworks, { id, network_ids: networkIds ? JSON.stringify(networkIds) : null, now });
}

export interface ListPage {
  limit: number;
  /** Cursor: the `seq` of the last item of the previous page. */
  beforeSeq?: number;
}

/** Newest first. Fetches one extra row to tell whether there is a next page. */
const list = preparedByShape(['before'], (qb, on) => {
  let q = qb.selectFrom('merchants').selectAll().where('partner_id', '=', param('partner_id')).where('environment', '=', param('environment'));
  if (on.before) q = q.where('seq', '<', param('before_seq'));
  return q.orderBy('seq', 'desc').limit(param('limit'));
});

export async function listMerchants(db: Runner, partnerId: string, environment: Environment, page: ListPage): Promise<MerchantRow[]> {
  return db.all(list.shape({ before: page.beforeSeq !== undefined }), {
    partner_id: partnerId,
    environment,
    before_seq: page.beforeSeq,
    limit: page.limit + 1,
  });
}
