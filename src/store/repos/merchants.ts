import type { Environment } from '../../domain/environment.js';
import { param, prepared, preparedByShape } from '../query.js';
import type { Insertable, Selectable } from 'kysely';
import type { MerchantsTable } from '../schema.js';
import type { Store } from '../sqlite/store.js';

export type MerchantRow = Selectable<MerchantsTable>;
export type NewMerchant = Omit<Insertable<MerchantsTable>, 'seq'>;

const insert = prepared((qb) =>
  qb.insertInto('merchants').values({
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
  }),
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

export function insertMerchant(store: Store, row: NewMerchant): void {
  insert.run(store, { ...row });
}

/** Any merchant by id, whoever owns it: callers check ownership (and answer 404 if it differs). */
export function findMerchant(store: Store, id: string): MerchantRow | undefined {
  return byId.get(store, { id });
}

export function findMerchantIdByTenant(store: Store, partnerId: string, environment: Environment, externalTenantId: string): string | undefined {
  return byTenant.get(store, { partner_id: partnerId, environment, external_tenant_id: externalTenantId })?.id;
}

export function setIntegrationStatus(store: Store, id: string, status: string, now: number): void {
  setStatus.run(store, { id, status, now });
}

export function setMerchantNetworks(store: Store, id: string, networkIds: number[] | null, now: number): void {
  setNetworks.run(store, { id, network_ids: networkIds ? JSON.stringify(networkIds) : null, now });
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

export function listMerchants(store: Store, partnerId: string, environment: Environment, page: ListPage): MerchantRow[] {
  return list.all(store, { before: page.beforeSeq !== undefined }, { partner_id: partnerId, environment, before_seq: page.beforeSeq, limit: page.limit + 1 });
}
