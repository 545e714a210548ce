import { param, prepared } from '../query.js';
import type { Store } from '../store.js';

const get = prepared((qb) => qb.selectFrom('meta').select('value').where('key', '=', param('key')));
const put = prepared((qb) =>
  qb
    .insertInto('meta')
    .values({ key: param('key'), value: param('value') })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: param('value') })),
);

export function getMeta<T>(store: Store, key: string): T | undefined {
  const row = get.get(store, { key });
  return row ? (JSON.parse(row.value) as T) : undefined;
}

export function setMeta(store: Store, key: string, value: unknown): void {
  put.run(store, { key, value: JSON.stringify(value) });
}
