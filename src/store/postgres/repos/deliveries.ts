import { sql } from 'kysely';
import type { AttemptRecord, AttemptRow, DeliveryFilter, DeliveryOutcome, DeliveryRow, NewDelivery } from '../../repos/deliveries.js';
import type { ListPage } from '../../repos/merchants.js';
import { DELIVERY_STATUSES, INVOICE_EVENT_TYPES } from '../../../contract/enums.js';
import { type PgHandle, touched } from './handle.js';

// PostgreSQL's deliveries: the same functions as ../../repos/deliveries.ts. Claims lock the rows
// they take with FOR UPDATE SKIP LOCKED, so concurrent claimers (the dispatcher's loops now, other
// replicas later) never take the same delivery, and none waits for another's rows.

const DUE = ['pending', 'retrying'] as const;

export async function insertDelivery(db: PgHandle, row: NewDelivery): Promise<void> {
  await db.insertInto('deliveries').values(row).execute();
}

export async function findDelivery(db: PgHandle, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function attemptsOfDelivery(db: PgHandle, id: string): Promise<AttemptRow[]> {
  return db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', id).orderBy('number').execute();
}

/** When the next delivery falls due, or null. */
export async function nextDeliveryDueAt(db: PgHandle): Promise<number | null> {
  const row = await db
    .selectFrom('deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', 'in', DUE)
    .where('in_flight', '=', 0)
    .executeTakeFirst();
  return row?.at ?? null;
}

/** The first due instant strictly after `now`, or null. */
export async function nextDeliveryDueAfter(db: PgHandle, now: number): Promise<number | null> {
  const row = await db
    .selectFrom('deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', 'in', DUE)
    .where('in_flight', '=', 0)
    .where('next_attempt_at', '>', now)
    .executeTakeFirst();
  return row?.at ?? null;
}

/** A claimed delivery whose attempt could not start (a database error): due again, unchanged. */
export async function releaseDelivery(db: PgHandle, id: string): Promise<void> {
  await db.updateTable('deliveries').set({ in_flight: 0 }).where('id', '=', id).where('in_flight', '=', 1).execute();
}

/**
 * At start: attempts that were running when the process died are due again. With one process on
 * the database, as on SQLite; with replicas (CONTRACT §12) this would take their running claims
 * too, and a lease replaces it (docs/decisions.md, "PostgreSQL repositories").
 */
export async function releaseInFlight(db: PgHandle): Promise<number> {
  return touched(await db.updateTable('deliveries').set({ in_flight: 0 }).where('in_flight', '=', 1).executeTakeFirst());
}

/**
 * Claims up to `limit` due deliveries, at most `perUrl` in flight per receiver URL counting those
 * already running (`busy`), as SQLite's claimDue does, in one statement. The candidates (the oldest
 * few times `limit`, receivers at their cap left out) are ranked per URL without locks; only the
 * rows taken are locked, with SKIP LOCKED: a row another claimer holds is passed over, not waited
 * for, and one it has taken since no longer matches `in_flight = 0` when re-checked under the lock.
 * Locking the candidates instead (PostgreSQL refuses FOR UPDATE beside the window function anyway)
 * would hide every candidate from other claimers while this claim's transaction is open.
 */
export async function claimDue(db: PgHandle, now: number, limit: number, perUrl: number, busy: ReadonlyMap<string, number>): Promise<DeliveryRow[]> {
  const saturated = [...busy].filter(([, n]) => n >= perUrl).map(([url]) => url);
  const scan = Math.min(1024, Math.max(64, limit * 4));
  // Plain SQL, as SQLite's claim is; its rows are the deliveries table's (`RETURNING d.*`).
  const { rows } = await sql<DeliveryRow>`
    WITH candidates AS (
      SELECT id, url, next_attempt_at, seq FROM deliveries
      WHERE status IN ('pending', 'retrying') AND in_flight = 0 AND next_attempt_at <= ${now}
        AND NOT (url = ANY(${saturated}::text[]))
      ORDER BY next_attempt_at, seq LIMIT ${scan}
    ), ranked AS (
      SELECT id, url, ROW_NUMBER() OVER (PARTITION BY url ORDER BY next_attempt_at, seq) AS rn FROM candidates
    ), chosen AS (
      SELECT ranked.id FROM ranked LEFT JOIN jsonb_each_text(${JSON.stringify(Object.fromEntries(busy))}::jsonb) AS busy(url, n) ON busy.url = ranked.url
      WHERE ranked.rn + COALESCE(busy.n::int, 0) <= ${perUrl}
    ), taken AS (
      SELECT d.id FROM deliveries d JOIN chosen ON chosen.id = d.id
      WHERE d.status IN ('pending', 'retrying') AND d.in_flight = 0
      ORDER BY d.next_attempt_at, d.seq LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE deliveries d SET in_flight = 1 FROM taken WHERE d.id = taken.id
    RETURNING d.*`.execute(db);
  return rows;
}

/** Claims up to `limit` due deliveries of one receiver URL (a slot of that receiver was freed). */
export async function claimDueForUrl(db: PgHandle, url: string, now: number, limit: number): Promise<DeliveryRow[]> {
  return db
    .updateTable('deliveries')
    .set({ in_flight: 1 })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('deliveries')
        .select('id')
        .where('url', '=', url)
        .where('status', 'in', DUE)
        .where('in_flight', '=', 0)
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
}

/** Writes an attempt and the delivery's new state together (on the caller's transaction). */
export async function recordAttempt(db: PgHandle, attempt: AttemptRecord, outcome: DeliveryOutcome): Promise<void> {
  await db.insertInto('delivery_attempts').values(attempt).execute();
  const { id, ...state } = outcome;
  await db.updateTable('deliveries').set(state).where('id', '=', id).execute();
}

export async function listDeliveries(db: PgHandle, filter: DeliveryFilter, page: ListPage): Promise<DeliveryRow[]> {
  // A status or type outside the closed lists matches no row, as SQLite's comparison finds none.
  const status = filter.status ? DELIVERY_STATUSES.find((s) => s === filter.status) : undefined;
  const eventType = filter.eventType ? INVOICE_EVENT_TYPES.find((t) => t === filter.eventType) : undefined;
  if ((filter.status && !status) || (filter.eventType && !eventType)) return [];
  let q = db.selectFrom('deliveries').selectAll().where('partner_id', '=', filter.partnerId).where('environment', '=', filter.environment);
  if (status) q = q.where('status', '=', status);
  if (eventType) q = q.where('event_type', '=', eventType);
  if (filter.invoiceId) q = q.where('invoice_id', '=', filter.invoiceId);
  if (filter.merchantId) q = q.where('merchant_id', '=', filter.merchantId);
  if (page.beforeSeq !== undefined) q = q.where('seq', '<', page.beforeSeq);
  return q
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .execute();
}
