import type { Environment } from '../../../domain/environment.js';
import { hashKey, keyHint, parseKey } from '../../../domain/keys.js';
import type { KeyOwner, KeyRow } from '../../repos/keys.js';
import type { KeyKind } from '../../schema.js';
import type { PgHandle } from './handle.js';

// PostgreSQL's API keys: the same functions as ../../repos/keys.ts. Only the hash is stored.

export async function findKey(db: PgHandle, key: string): Promise<KeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('hash', '=', hashKey(key)).executeTakeFirst();
}

/** Stores a key's hash for its owner (a key stored already is left as it is, as on SQLite). */
export async function insertKey(db: PgHandle, key: string, owner: KeyOwner, now: number): Promise<void> {
  const parsed = parseKey(key);
  if (!parsed) throw new Error('malformed key');
  const kind: KeyKind = parsed.kind;
  await db
    .insertInto('api_keys')
    .values({
      hash: hashKey(key),
      kind,
      environment: parsed.environment satisfies Environment,
      partner_id: owner.partnerId,
      merchant_id: owner.merchantId,
      hint: keyHint(key),
      created_at: now,
    })
    .onConflict((oc) => oc.column('hash').doNothing())
    .execute();
}

export async function deleteKey(db: PgHandle, key: string): Promise<void> {
  await db.deleteFrom('api_keys').where('hash', '=', hashKey(key)).execute();
}

export async function listPartnerKeys(db: PgHandle, partnerId: string): Promise<KeyRow[]> {
  // created_at ties (keys issued in one instant) keep the order they were stored in on SQLite by
  // rowid; hash is a stable tie-break here, where rows have no insertion order.
  return db.selectFrom('api_keys').selectAll().where('partner_id', '=', partnerId).orderBy('created_at').orderBy('hash').execute();
}
