import type { PartnerRow } from '../../repos/partners.js';
import type { PgHandle } from './handle.js';

// PostgreSQL's partners repository: the same functions as ../../repos/partners.ts (src/store/engine.ts).

export async function insertPartner(db: PgHandle, row: PartnerRow): Promise<void> {
  await db.insertInto('partners').values(row).execute();
}

export async function findPartner(db: PgHandle, id: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('partners').selectAll().where('id', '=', id).executeTakeFirst();
}
