import { param, prepared } from '../query.js';
import type { Store } from '../sqlite/store.js';

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
export function getMeta<T>(store: Store, key: string, is: (value: unknown) => value is T): T | undefined {
  const row = get.get(store, { key });
  if (!row) return undefined;
  const value: unknown = JSON.parse(row.value);
  if (!is(value)) throw new Error(`svc: the meta entry ${key} does not hold what svc stores there`);
  return value;
}

/** For numbers in `meta` (clock offsets, epochs). */
export const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

export function setMeta(store: Store, key: string, value: unknown): void {
  put.run(store, { key, value: JSON.stringify(value) });
}

/**
 * Holds `key`'s entry until the transaction ends, for a read-modify-write (a fault's use counted
 * across replicas). SQLite has one writer at a time already: nothing to do.
 */
export function lockMeta(_store: Store, _key: string): void {}
