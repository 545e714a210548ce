import { sql } from 'kysely';
import type { BatchStatements } from '../engine.js';
import type { DeliveryOutcome, DeliveryRow } from '../repos/deliveries.js';
import type { EventRow } from '../repos/events.js';
import type { PgHandle } from './handle.js';

// PostgreSQL's batches (../engine.ts BatchStatements): one statement for what the repositories would
// run once per item, where each statement is a round trip. Arrays travel as one parameter each
// (`= any($1)`, `unnest`), so each text is the same whatever the batch's size.

export function postgresBatches(db: PgHandle): BatchStatements {
  return {
    findEvents: (ids) => findEvents(db, ids),
    endLeasesAndFind: async (held, ids) => {
      if (!ids.length) {
        const { rows: ended } = await sql<{ id: string }>`
          UPDATE deliveries d SET lease_token = NULL, lease_until = NULL
          FROM unnest(${held.map((h) => h.id)}::text[], ${held.map((h) => h.token)}::text[]) AS h(id, token)
          WHERE d.id = h.id AND d.lease_token = h.token AND d.in_flight = 1
          RETURNING d.id`.execute(db);
        return { held: ended.map((r) => r.id), rows: [] };
      }
      const { rows } = await sql<DeliveryRow & { lease_ended: boolean }>`
        WITH ended AS (
          UPDATE deliveries d SET lease_token = NULL, lease_until = NULL
          FROM unnest(${held.map((h) => h.id)}::text[], ${held.map((h) => h.token)}::text[]) AS h(id, token)
          WHERE d.id = h.id AND d.lease_token = h.token AND d.in_flight = 1
          RETURNING d.id)
        SELECT d.*, d.id IN (SELECT id FROM ended) AS lease_ended FROM deliveries d WHERE d.id = any(${[...ids]}::text[])`.execute(db);
      // The rows come from the statement's snapshot, before the leases ended: what the results are
      // computed from, which the lease columns are not.
      return {
        held: rows.filter((r) => r.lease_ended).map((r) => r.id),
        rows: rows.map(({ lease_ended: _, ...row }) => row),
      };
    },
    recordAttempts: async (writes) => {
      if (!writes.length) return;
      await db
        .insertInto('delivery_attempts')
        .values(writes.map((w) => w.attempt))
        .execute();
      // A delivery twice in the batch (a resend beside a scheduled attempt) takes its last state: an
      // UPDATE … FROM changes a row once, with any one of its matches.
      const last = [...new Map(writes.map((w) => [w.outcome.id, w.outcome])).values()];
      const column = <K extends keyof DeliveryOutcome>(key: K) => last.map((o) => o[key]);
      await sql`
        UPDATE deliveries d SET url = v.url, status = v.status, attempt_count = v.attempt_count,
          scheduled_attempts = v.scheduled_attempts, in_flight = v.in_flight, last_attempt_at = v.last_attempt_at,
          next_attempt_at = v.next_attempt_at, last_response_status = v.last_response_status,
          last_error = v.last_error, updated_at = v.updated_at
        FROM unnest(${column('id')}::text[], ${column('url')}::text[], ${column('status')}::text[],
          ${column('attempt_count')}::int[], ${column('scheduled_attempts')}::int[], ${column('in_flight')}::int[],
          ${column('last_attempt_at')}::bigint[], ${column('next_attempt_at')}::bigint[],
          ${column('last_response_status')}::int[], ${column('last_error')}::text[], ${column('updated_at')}::bigint[])
          AS v(id, url, status, attempt_count, scheduled_attempts, in_flight, last_attempt_at, next_attempt_at,
            last_response_status, last_error, updated_at)
        WHERE d.id = v.id`.execute(db);
    },
    lastConfirmedTokensOf: async (invoiceIds) => {
      const tokens = new Map<string, string | null>(invoiceIds.map((id) => [id, null]));
      if (invoiceIds.length === 0) return tokens;
      const rows = await db
        .selectFrom('payments')
        .distinctOn('invoice_id')
        .select(['invoice_id', 'token'])
        .where(sql<boolean>`invoice_id = any(${[...invoiceIds]}::text[])`)
        .where('confirmed', '=', 1)
        .orderBy('invoice_id')
        .orderBy('confirmed_at', 'desc')
        .orderBy('seq', 'desc')
        .execute();
      for (const row of rows) tokens.set(row.invoice_id, row.token);
      return tokens;
    },
  };
}

/** The events of `ids` that exist, in no particular order (an id holding U+0000 is none: it would fail the statement). */
async function findEvents(db: PgHandle, ids: readonly string[]): Promise<EventRow[]> {
  const asked = ids.filter((id) => !id.includes('\0'));
  if (!asked.length) return [];
  const { rows } = await sql<EventRow>`select * from events where id = any(${asked}::text[])`.execute(db);
  return rows;
}
