import type { Runner } from '../engine.js';
import { StoreConflictError } from '../conflicts.js';
import { param, prepared } from '../query.js';
import type { IdempotencyKeysTable } from '../schema.js';

export type IdempotencyRow = IdempotencyKeysTable;

const byScope = prepared((qb) => qb.selectFrom('idempotency_keys').selectAll().where('scope', '=', param('scope')).where('expires_at', '>', param('now')));
const remember = prepared((qb) =>
  qb
    .insertInto('idempotency_keys')
    .values({
      scope: param('scope'),
      fingerprint: param('fingerprint'),
      status: param('status'),
      response: param('response'),
      created_at: param('created_at'),
      expires_at: param('expires_at'),
    })
    // An expired row with the same scope may still be there until the sweep: replaced. A live one stays.
    .onConflict((oc) =>
      oc
        .column('scope')
        .doUpdateSet({
          fingerprint: (eb) => eb.ref('excluded.fingerprint'),
          status: (eb) => eb.ref('excluded.status'),
          response: (eb) => eb.ref('excluded.response'),
          created_at: (eb) => eb.ref('excluded.created_at'),
          expires_at: (eb) => eb.ref('excluded.expires_at'),
        })
        .where('idempotency_keys.expires_at', '<=', (eb) => eb.ref('excluded.created_at')),
    ),
);
const sweep = prepared((qb) => qb.deleteFrom('idempotency_keys').where('expires_at', '<=', param('now')));

/** The remembered response for a scope, unless it has expired on the emulator clock. */
export async function findIdempotent(db: Runner, scope: string, now: number): Promise<IdempotencyRow | undefined> {
  return db.get(byScope, { scope, now });
}

/**
 * Remembers a create's response, in the create's transaction. An expired row of the same scope
 * (not yet swept) is replaced. A live one means a concurrent create with the same scope committed
 * first (another replica's: on one process the key's in-flight lock keeps a second one out): the
 * insert waits for that transaction, then changes nothing, and this throws StoreConflictError so
 * that the caller's transaction rolls back (its resource and event with it) and the caller replays
 * the winner's response (server/pipeline/idempotency.ts).
 */
export async function rememberIdempotent(db: Runner, row: IdempotencyRow): Promise<void> {
  if ((await db.run(remember, { ...row })) === 0) throw new StoreConflictError('idempotency_key');
}

export async function sweepIdempotency(db: Runner, now: number): Promise<number> {
  return db.run(sweep, { now });
}
