import { StoreConflictError } from '../../conflicts.js';
import type { IdempotencyRow } from '../../repos/idempotency.js';
import { CompiledQuery } from 'kysely';
import { type PgHandle, touched } from './handle.js';
import { insertOne } from './insert-one.js';

// PostgreSQL's idempotency records: the same functions as ../../repos/idempotency.ts, with the race
// decided by the primary key on `scope` instead of by SQLite's one writer at a time.

/** The remembered response for a scope, unless it has expired on the emulator clock. */
export async function findIdempotent(db: PgHandle, scope: string, now: number): Promise<IdempotencyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).where('expires_at', '>', now).executeTakeFirst();
}

/**
 * Remembers a create's response, in the create's transaction. An expired row of the same scope
 * (not yet swept) is replaced, as on SQLite. A live one means a concurrent create with the same
 * scope committed first (it passed findIdempotent before this one's winner existed): the insert
 * waits for that transaction, then updates nothing, and this throws StoreConflictError so that
 * the caller's transaction rolls back (its resource and event with it) and the caller replays the
 * winner's response. Plain `DO UPDATE`, as SQLite's statement reads, would overwrite the winner
 * here and leave two resources.
 */
export async function rememberIdempotent(db: PgHandle, row: IdempotencyRow): Promise<void> {
  // Compiled once (insert-one.ts): kysely built this upsert in ~15 µs on every create.
  const insert = insertOne('idempotency_keys', row);
  const result = await db.executeQuery(CompiledQuery.raw(`${insert.sql} ${REPLACING_EXPIRED}`, [...insert.parameters]));
  // 0 rows when the conflict's WHERE kept the live row.
  if (Number(result.numAffectedRows ?? 0n) === 0) throw new StoreConflictError('idempotency_key');
}

export async function sweepIdempotency(db: PgHandle, now: number): Promise<number> {
  return touched(await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst());
}

/** An expired record of the same scope is replaced by the new one; a live one stays (0 rows). */
const REPLACING_EXPIRED =
  'on conflict ("scope") do update set "fingerprint" = excluded."fingerprint", "status" = excluded."status", "response" = excluded."response", ' +
  '"created_at" = excluded."created_at", "expires_at" = excluded."expires_at" where "idempotency_keys"."expires_at" <= excluded."created_at"';
