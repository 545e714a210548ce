import type { Environment } from '../../domain/environment.js';
import { hashKey, keyHint, parseKey } from '../../domain/keys.js';
import type { Runner } from '../engine.js';
import { param, prepared } from '../query.js';
import type { ApiKeysTable, KeyKind } from '../schema.js';

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
// Keys issued in one instant tie on created_at: the hash orders them alike on every engine.
const byPartner = prepared((qb) => qb.selectFrom('api_keys').selectAll().where('partner_id', '=', param('partner_id')).orderBy('created_at').orderBy('hash'));

export async function findKey(db: Runner, key: string): Promise<KeyRow | undefined> {
  return db.get(byHash, { hash: hashKey(key) });
}

export interface KeyOwner {
  partnerId: string;
  merchantId: string | null;
}

/** Stores a key's hash for its owner (a key stored already is left as it is). The key's prefix must match `kind` and `environment`. */
export async function insertKey(db: Runner, key: string, owner: KeyOwner, now: number): Promise<void> {
  const parsed = parseKey(key);
  if (!parsed) throw new Error('malformed key');
  const kind: KeyKind = parsed.kind;
  await db.run(insert, {
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
export async function deleteKey(db: Runner, key: string): Promise<void> {
  await db.run(removeByHash, { hash: hashKey(key) });
}

export async function listPartnerKeys(db: Runner, partnerId: string): Promise<KeyRow[]> {
  return db.all(byPartner, { partner_id: partnerId });
}
