import { sql } from 'kysely';
import type { PgHandle } from './handle.js';

// PostgreSQL's meta repository: the same functions as ../../repos/meta.ts. Values are JSON text.

/** A value svc stored under `key`, checked by `is` on the way back (untrusted snapshots, CONTRACT §8). */
export async function getMeta<T>(db: PgHandle, key: string, is: (value: unknown) => value is T): Promise<T | undefined> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
  if (!row) return undefined;
  const value: unknown = JSON.parse(row.value);
  if (!is(value)) throw new Error(`svc: the meta entry ${key} does not hold what svc stores there`);
  return value;
}

export async function setMeta(db: PgHandle, key: string, value: unknown): Promise<void> {
  const text = JSON.stringify(value);
  await db
    .insertInto('meta')
    .values({ key, value: text })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: text }))
    .execute();
}

/**
 * Holds `key`'s entry until the transaction ends, for a read-modify-write that replicas may run at
 * once: a fault's `times` counted across them, the default identity written at a first start. The
 * advisory lock holds even while the entry does not exist yet (FOR UPDATE locks no row then: two
 * replicas starting together on an empty database each wrote an identity of their own, issue 28);
 * its two-key form cannot meet the migration's one-key lock. Outside a transaction, nothing.
 */
export async function lockMeta(db: PgHandle, key: string): Promise<void> {
  if (!db.isTransaction) return;
  await sql`SELECT pg_advisory_xact_lock(${sql.lit(META_LOCK_SPACE)}, hashtext(${key}))`.execute(db);
  await db.selectFrom('meta').select('key').where('key', '=', key).forUpdate().execute();
}

/** The first key of meta's advisory locks ('svcm'); the second is the entry's name, hashed. */
const META_LOCK_SPACE = 0x7376636d;
