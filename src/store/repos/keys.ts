import type { Environment } from '../../domain/environment.js';
import { hashKey, keyHint, parseKey } from '../../domain/keys.js';
import { param, prepared } from '../query.js';
import type { ApiKeysTable, KeyKind } from '../schema.js';
import type { Store } from '../sqlite/store.js';

export type KeyRow = ApiKeysTable;

const byHash = prepared((qb) => qb.selectFrom('api_keys').selectAll().where('hash', '=', param('hash')));
const insert = prepared((qb) =>
  qb
    .insertInto('api_keys')
    .values({
      hash: param('hash'),
      kind: param('kind'),
      environment: param('environment'),
      partner_id: param('partner_id'),
      merchant_id: param('merchant_id'),
      hint: param('hint'),
      created_at: param('created_at'),
    })
    .onConflict((oc) => oc.column('hash').doNothing()),
);
const byPartner = prepared((qb) => qb.selectFrom('api_keys').selectAll().where('partner_id', '=', param('partner_id')).orderBy('created_at'));

export function findKey(store: Store, key: string): KeyRow | undefined {
  return byHash.get(store, { hash: hashKey(key) });
}

export interface KeyOwner {
  partnerId: string;
  merchantId: string | null;
}

/** Stores a key's hash for its owner. The key's prefix must match `kind` and `environment`. */
export function insertKey(store: Store, key: string, owner: KeyOwner, now: number): void {
  const parsed = parseKey(key);
  if (!parsed) throw new Error('malformed key');
  const kind: KeyKind = parsed.kind;
  insert.run(store, {
    hash: hashKey(key),
    kind,
    environment: parsed.environment satisfies Environment,
    partner_id: owner.partnerId,
    merchant_id: owner.merchantId,
    hint: keyHint(key),
    created_at: now,
  });
}

const removeByHash = prepared((qb) => qb.deleteFrom('api_keys').where('hash', '=', param('hash')));

/** Revokes a key: requests with it are refused from now on. */
export function deleteKey(store: Store, key: string): void {
  removeByHash.run(store, { hash: hashKey(key) });
}

export function listPartnerKeys(store: Store, partnerId: string): KeyRow[] {
  return byPartner.all(store, { partner_id: partnerId });
}
