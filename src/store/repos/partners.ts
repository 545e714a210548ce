import { param, prepared } from '../query.js';
import type { PartnersTable } from '../schema.js';
import type { Store } from '../sqlite/store.js';

export type PartnerRow = PartnersTable;

const insert = prepared((qb) => qb.insertInto('partners').values({ id: param('id'), name: param('name'), created_at: param('created_at') }));
const byId = prepared((qb) => qb.selectFrom('partners').selectAll().where('id', '=', param('id')));

export function insertPartner(store: Store, row: PartnerRow): void {
  insert.run(store, { ...row });
}

export function findPartner(store: Store, id: string): PartnerRow | undefined {
  return byId.get(store, { id });
}
