import type { Runner } from '../engine.js';
import { param, prepared } from '../query.js';
import type { PartnersTable } from '../schema.js';

export type PartnerRow = PartnersTable;

const insert = prepared((qb) => qb.insertInto('partners').values({ id: param('id'), name: param('name'), created_at: param('created_at') }));
const byId = prepared((qb) => qb.selectFrom('partners').selectAll().where('id', '=', param('id')));

export async function insertPartner(db: Runner, row: PartnerRow): Promise<void> {
  await db.run(insert, { ...row });
}

export async function findPartner(db: Runner, id: string): Promise<PartnerRow | undefined> {
  return db.get(byId, { id });
}
