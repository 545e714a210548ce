import { param, prepared } from '../query.js';
import type { IdempotencyKeysTable } from '../schema.js';
import type { Store } from '../sqlite/store.js';

export type IdempotencyRow = IdempotencyKeysTable;

const byScope = prepared((qb) => qb.selectFrom('idempotency_keys').selectAll().where('scope', '=', param('scope')).where('expires_at', '>', param('now')));
const upsert = prepared((qb) =>
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
    // An expired row with the same scope may still be there until the sweep: replace it.
    .onConflict((oc) =>
      oc.column('scope').doUpdateSet({
        fingerprint: param('fingerprint'),
        status: param('status'),
        response: param('response'),
        created_at: param('created_at'),
        expires_at: param('expires_at'),
      }),
    ),
);
const sweep = prepared((qb) => qb.deleteFrom('idempotency_keys').where('expires_at', '<=', param('now')));

/** The remembered response for a scope, unless it has expired on the emulator clock. */
export function findIdempotent(store: Store, scope: string, now: number): IdempotencyRow | undefined {
  return byScope.get(store, { scope, now });
}

export function rememberIdempotent(store: Store, row: IdempotencyRow): void {
  upsert.run(store, { ...row });
}

export function sweepIdempotency(store: Store, now: number): number {
  return sweep.run(store, { now }).changes;
}
