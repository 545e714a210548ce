import { StoreConflictError } from '../../conflicts.js';
import type { IdempotencyRow } from '../../repos/idempotency.js';
import { type PgHandle, touched } from './handle.js';

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
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('scope')
        .doUpdateSet({ fingerprint: row.fingerprint, status: row.status, response: row.response, created_at: row.created_at, expires_at: row.expires_at })
        .where('idempotency_keys.expires_at', '<=', row.created_at),
    )
    .executeTakeFirst();
  // An insert answers numInsertedOrUpdatedRows; 0 when the conflict's WHERE kept the live row.
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) === 0) throw new StoreConflictError('idempotency_key');
}

export async function sweepIdempotency(db: PgHandle, now: number): Promise<number> {
  return touched(await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst());
}
