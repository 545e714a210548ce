import type { Runner } from '../engine.js';
import { param, prepared } from '../query.js';

const get = prepared((qb) => qb.selectFrom('meta').select('value').where('key', '=', param('key')));
const put = prepared((qb) =>
  qb
    .insertInto('meta')
    .values({ key: param('key'), value: param('value') })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: param('value') })),
);

/**
 * A value svc stored under `key`, checked by `is` on the way back (a restored snapshot is untrusted,
 * CONTRACT §8): a value of another shape is an error naming the key, never a wrong value passed on.
 */
export async function getMeta<T>(db: Runner, key: string, is: (value: unknown) => value is T): Promise<T | undefined> {
  const row = await db.get(get, { key });
  if (!row) return undefined;
  const value: unknown = JSON.parse(row.value);
  if (!is(value)) throw new Error(`svc: the meta entry ${key} does not hold what svc stores there`);
  return value;
}

/** For numbers in `meta` (clock offsets, epochs). */
export const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

export async function setMeta(db: Runner, key: string, value: unknown): Promise<void> {
  await db.run(put, { key, value: JSON.stringify(value) });
}

/**
 * Holds `key`'s entry until the transaction ends, for a read-modify-write that several processes
 * may run at once (a fault's `times` counted across replicas, the default identity written at a
 * first start): the engine's own lock (../engine.ts). Outside a transaction, nothing.
 */
export async function lockMeta(db: Runner, key: string): Promise<void> {
  await db.own.lockMeta(key);
}
