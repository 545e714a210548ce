import { sql } from 'kysely';
import type {
  AttemptRecord,
  AttemptRow,
  AttemptWrite,
  DeliveryFilter,
  DeliveryOutcome,
  DeliveryRow,
  Held,
  Lease,
  ListenerScope,
  NewDelivery,
} from '../../repos/deliveries.js';
import type { ListPage } from '../../repos/merchants.js';
import { DELIVERY_STATUSES, INVOICE_EVENT_TYPES } from '../../../contract/enums.js';
import { deferWrite } from '../deferred-writes.js';
import { holdsNul, type PgHandle, touched } from './handle.js';
import { insertOne } from './insert-one.js';
import { RECEIVER_SQL_POSTGRES, receiverOf } from '../../../domain/receiver.js';

// PostgreSQL's deliveries: the same functions as ../../repos/deliveries.ts. Claims lock the rows
// they take with FOR UPDATE SKIP LOCKED, so concurrent claimers (the dispatcher's loops now, other
// replicas later) never take the same delivery, and none waits for another's rows.

const DUE = ['pending', 'retrying'] as const;
/** A delivery's receiver (`receiverOf`: scheme, host and port), as SQL on its `url`. */
const RECEIVER = sql.raw(RECEIVER_SQL_POSTGRES);

/** Deferred (deferred-writes.ts): it goes with the transaction's next statement. */
export async function insertDelivery(db: PgHandle, row: NewDelivery): Promise<void> {
  await deferWrite(db, insertOne('deliveries', row), row.id);
}

export async function findDelivery(db: PgHandle, id: string): Promise<DeliveryRow | undefined> {
  if (holdsNul(id)) return undefined;
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

const UNLEASED = { in_flight: 0, lease_token: null, lease_until: null } as const;

/**
 * A claimed delivery whose attempt could not start (a database error): due again, unchanged. With
 * its claim's `token`, only while that claim still holds it (not once another replica re-claimed it).
 */
export async function releaseDelivery(db: PgHandle, id: string, token?: string): Promise<void> {
  let q = db.updateTable('deliveries').set(UNLEASED).where('id', '=', id).where('in_flight', '=', 1);
  if (token !== undefined) q = q.where('lease_token', '=', token);
  await q.execute();
}

/**
 * Every delivery in flight is due again. On PostgreSQL this takes other replicas' live claims too
 * (CONTRACT §12): start-up releases only expired leases (`releaseExpiredLeases`); this stays for a
 * snapshot restore, which replaces the whole state anyway.
 */
export async function releaseInFlight(db: PgHandle): Promise<number> {
  return touched(await db.updateTable('deliveries').set(UNLEASED).where('in_flight', '=', 1).executeTakeFirst());
}

/** Claims whose lease ended by `wallNow` (wall-clock ms) are due again, attempt count unchanged (SQLite's twin). */
export async function releaseExpiredLeases(db: PgHandle, wallNow: number): Promise<number> {
  return touched(await db.updateTable('deliveries').set(UNLEASED).where('in_flight', '=', 1).where('lease_until', '<=', wallNow).executeTakeFirst());
}

/** Extends to `until` every lease the claimer `owner` holds (tokens `<owner>.<n>`; SQLite's twin). */
export async function renewLeases(db: PgHandle, owner: string, until: number): Promise<number> {
  return touched(
    await db.updateTable('deliveries').set({ lease_until: until }).where('in_flight', '=', 1).where('lease_token', 'like', `${owner}.%`).executeTakeFirst(),
  );
}

/**
 * Which of the deliveries `held` their claim still holds; their leases end. One statement for a
 * batch of results; the rows stay locked until the caller's transaction ends, so no replica
 * releases and re-claims them before the results are written (SQLite's twin).
 */
export async function endLeases(db: PgHandle, held: readonly Held[]): Promise<string[]> {
  if (!held.length) return [];
  const { rows } = await sql<{ id: string }>`
    UPDATE deliveries d SET lease_token = NULL, lease_until = NULL
    FROM unnest(${held.map((h) => h.id)}::text[], ${held.map((h) => h.token)}::text[]) AS h(id, token)
    WHERE d.id = h.id AND d.lease_token = h.token AND d.in_flight = 1
    RETURNING d.id`.execute(db);
  return rows.map((r) => r.id);
}

/**
 * endLeases and the deliveries of `ids` in one statement (a result flush was five round trips, now
 * four); `= any(array)`: one text whatever the batch's size, prepared once (named-statements.ts).
 * The rows come from the statement's snapshot, before the leases ended: what the results are
 * computed from, which the lease columns are not.
 */
export async function endLeasesAndFind(db: PgHandle, held: readonly Held[], ids: readonly string[]): Promise<{ held: string[]; rows: DeliveryRow[] }> {
  if (!ids.length) return { held: await endLeases(db, held), rows: [] };
  const { rows } = await sql<DeliveryRow & { lease_ended: boolean }>`
    WITH ended AS (
      UPDATE deliveries d SET lease_token = NULL, lease_until = NULL
      FROM unnest(${held.map((h) => h.id)}::text[], ${held.map((h) => h.token)}::text[]) AS h(id, token)
      WHERE d.id = h.id AND d.lease_token = h.token AND d.in_flight = 1
      RETURNING d.id)
    SELECT d.*, d.id IN (SELECT id FROM ended) AS lease_ended FROM deliveries d WHERE d.id = any(${[...ids]}::text[])`.execute(db);
  return {
    held: rows.filter((r) => r.lease_ended).map((r) => r.id),
    rows: rows.map(({ lease_ended: _, ...row }) => row),
  };
}

/**
 * Claims of every replica take turns under this advisory lock (one per database, 'svcl'), held to the
 * end of the claim's transaction. Each claim counts a receiver's rows in flight before it takes
 * more; at READ COMMITTED two claims at once each counted without the other's (uncommitted) rows,
 * so a dead receiver held a few attempts above its cap (issue 28: 65 to 68 of 64 with two replicas,
 * test/integration/replicas-dead-receiver.test.ts). Taken in a statement of its own: the claim's
 * statement then starts after the previous claim committed, and its snapshot counts those rows.
 */
const CLAIM_LOCK = 0x7376636c;

/**
 * How long a claim waits for its turn. A claimer stuck inside its claim (a frozen replica, a network
 * cut before the server notices) must not stop every replica's deliveries: past this wait the claim
 * goes ahead without its turn, with SKIP LOCKED as ever, and only the cap may be passed by its rows.
 */
const CLAIM_TURN_WAIT = '1s';

/**
 * The turn, in a savepoint with its own lock timeout (one round trip): when the wait runs out, the
 * savepoint is rolled back (its lock timeout with it) and the transaction goes on. Outside a
 * transaction a turn would end with its own statement: none is taken.
 */
async function takeClaimTurn(db: PgHandle): Promise<void> {
  if (!db.isTransaction) return;
  try {
    await sql`SAVEPOINT claim_turn; SET LOCAL lock_timeout = ${sql.lit(CLAIM_TURN_WAIT)}; SELECT pg_advisory_xact_lock(${sql.lit(CLAIM_LOCK)}); SET LOCAL lock_timeout = 0`.execute(
      db,
    );
  } catch (error) {
    // 55P03 lock_not_available: the wait ran out. Anything else is the claim's to report.
    if (!(error instanceof Error && 'code' in error && error.code === '55P03')) throw error;
    await sql`ROLLBACK TO SAVEPOINT claim_turn`.execute(db);
  }
}

/**
 * Claims up to `limit` due deliveries, at most `perUrl` in flight per receiver (`receiverOf`: scheme,
 * host and port) counting those already running (`busy`, by receiver), partners taking turns among
 * the rows chosen, as SQLite's claimDue does, in one statement. The candidates (the oldest few times
 * `limit`, receivers at their cap left out) are ranked per receiver without locks; only the
 * rows taken are locked, with SKIP LOCKED: a row another claimer holds is passed over, not waited
 * for, and one it has taken since no longer matches `in_flight = 0` when re-checked under the lock.
 * Locking the candidates instead (PostgreSQL refuses FOR UPDATE beside the window function anyway)
 * would hide every candidate from other claimers while this claim's transaction is open.
 *
 * Replicas (CONTRACT §12): a receiver's running attempts are counted from the database too (every
 * replica's claimed rows, through the partial index deliveries_leased), the larger of that and
 * `busy` kept. Claims take turns (`takeClaimTurn`), so each counts the claims committed before it
 * and the cap holds across replicas. Run inside a transaction: the turn ends when it commits.
 */
export async function claimDue(
  db: PgHandle,
  now: number,
  limit: number,
  perUrl: number,
  busy: ReadonlyMap<string, number>,
  lease?: Lease,
  listeners?: ListenerScope,
): Promise<DeliveryRow[]> {
  const scan = Math.min(1024, Math.max(64, limit * 4));
  await takeClaimTurn(db);
  // Plain SQL, as SQLite's claim is; its rows are the deliveries table's (`RETURNING d.*`).
  const { rows } = await sql<DeliveryRow>`
    WITH mine AS (
      SELECT receiver, n::int AS n FROM jsonb_each_text(${JSON.stringify(Object.fromEntries(busy))}::jsonb) AS mine(receiver, n)
    ), shared AS (
      SELECT ${RECEIVER} AS receiver, count(*)::int AS n FROM deliveries WHERE in_flight = 1 GROUP BY 1
    ), busy AS (
      SELECT receiver, max(n) AS n FROM (SELECT * FROM mine UNION ALL SELECT * FROM shared) AS counts GROUP BY receiver
    ), candidates AS (
      SELECT id, ${RECEIVER} AS receiver, partner_id, next_attempt_at, seq FROM deliveries
      WHERE status IN ('pending', 'retrying') AND in_flight = 0 AND next_attempt_at <= ${now}
        AND ${RECEIVER} NOT IN (SELECT receiver FROM busy WHERE n >= ${perUrl}) ${listenerFilter(listeners)}
      ORDER BY next_attempt_at, seq LIMIT ${scan}
    ), ranked AS (
      SELECT id, receiver, partner_id, next_attempt_at, seq, ROW_NUMBER() OVER (PARTITION BY receiver ORDER BY next_attempt_at, seq) AS rn FROM candidates
    ), chosen AS (
      SELECT ranked.id, ROW_NUMBER() OVER (PARTITION BY ranked.partner_id ORDER BY ranked.next_attempt_at, ranked.seq) AS turn
      FROM ranked LEFT JOIN busy ON busy.receiver = ranked.receiver
      WHERE ranked.rn + COALESCE(busy.n, 0) <= ${perUrl}
    ), taken AS (
      SELECT d.id FROM deliveries d JOIN chosen ON chosen.id = d.id
      WHERE d.status IN ('pending', 'retrying') AND d.in_flight = 0
      ORDER BY chosen.turn, d.next_attempt_at, d.seq LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE deliveries d SET in_flight = 1, lease_token = ${lease?.token ?? null}, lease_until = ${lease?.until ?? null}
    FROM taken WHERE d.id = taken.id
    RETURNING d.*`.execute(db);
  return inQueueOrder(rows);
}

/**
 * A listener delivery is claimed only by a replica holding a stream of its listener, or by any
 * replica when no other holds a live one (it then fails `listener_unavailable`, as on one process).
 * Nothing for a claim without a scope (SQLite's, or a test's): every delivery, as before.
 */
function listenerFilter(scope: ListenerScope | undefined) {
  if (!scope) return sql``;
  return sql`AND (deliveries.target <> 'listener'
    OR deliveries.partner_id || ':' || deliveries.environment = ANY(${scope.here}::text[])
    OR NOT EXISTS (SELECT 1 FROM listener_streams s WHERE s.partner_id = deliveries.partner_id
      AND s.environment = deliveries.environment AND s.replica_id <> ${scope.replica} AND s.lease_until > ${scope.wallNow}))`;
}

/**
 * RETURNING gives rows in whatever order the plan produced them (the replicas' count changed the
 * plan): attempts start in the queue's order (due time, then creation), as on SQLite, which seeded
 * chaos (CONTRACT §9) relies on.
 */
function inQueueOrder(rows: DeliveryRow[]): DeliveryRow[] {
  return rows.sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || Number(a.seq) - Number(b.seq));
}

/**
 * Claims up to `limit` due deliveries of the receiver of `url` (a slot of that receiver was freed),
 * partners taking turns. With `perUrl`, no more than the receiver's room left across replicas:
 * `perUrl` less its rows in flight in the database (every replica's claims, counted in its turn as
 * in claimDue).
 */
export async function claimDueForUrl(
  db: PgHandle,
  url: string,
  now: number,
  limit: number,
  lease?: Lease,
  perUrl?: number,
  listeners?: ListenerScope,
): Promise<DeliveryRow[]> {
  const receiver = receiverOf(url);
  let room = limit;
  if (perUrl !== undefined) {
    await takeClaimTurn(db);
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM deliveries WHERE in_flight = 1 AND ${RECEIVER} = ${receiver}`.execute(db);
    room = Math.min(limit, perUrl - Number(rows[0]?.n ?? 0));
  }
  if (room <= 0) return [];
  const { rows } = await sql<DeliveryRow>`
    WITH chosen AS (
      SELECT id, next_attempt_at, seq, ROW_NUMBER() OVER (PARTITION BY partner_id ORDER BY next_attempt_at, seq) AS turn FROM deliveries
      WHERE ${RECEIVER} = ${receiver} AND status IN ('pending', 'retrying') AND in_flight = 0 AND next_attempt_at <= ${now} ${listenerFilter(listeners)}
      ORDER BY next_attempt_at, seq LIMIT ${Math.min(1024, Math.max(64, room * 4))}
    ), taken AS (
      SELECT d.id FROM deliveries d JOIN chosen ON chosen.id = d.id
      WHERE d.status IN ('pending', 'retrying') AND d.in_flight = 0
      ORDER BY chosen.turn, d.next_attempt_at, d.seq LIMIT ${room}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE deliveries d SET in_flight = 1, lease_token = ${lease?.token ?? null}, lease_until = ${lease?.until ?? null}
    FROM taken WHERE d.id = taken.id
    RETURNING d.*`.execute(db);
  return inQueueOrder(rows);
}

/** Writes an attempt and the delivery's new state together (on the caller's transaction). */
export async function recordAttempt(db: PgHandle, attempt: AttemptRecord, outcome: DeliveryOutcome): Promise<void> {
  await db.insertInto('delivery_attempts').values(attempt).execute();
  const { id, ...state } = outcome;
  await db.updateTable('deliveries').set(state).where('id', '=', id).execute();
}

/**
 * A batch of recordAttempt in two statements, whatever its size (a round trip is what a statement
 * costs here), both deferred and so sent as one: one multi-row insert, one UPDATE from arrays. A delivery twice in the batch (a resend
 * beside a scheduled attempt) takes its last state: an UPDATE … FROM changes a row once, with any one
 * of its matches, so the earlier ones are left out.
 */
export async function recordAttempts(db: PgHandle, writes: readonly AttemptWrite[]): Promise<void> {
  if (!writes.length) return;
  // Deferred (deferred-writes.ts): the two go in one statement, before the COMMIT.
  await deferWrite(db, db.insertInto('delivery_attempts').values(writes.map((w) => w.attempt)));
  const last = [...new Map(writes.map((w) => [w.outcome.id, w.outcome])).values()];
  const column = <K extends keyof DeliveryOutcome>(key: K) => last.map((o) => o[key]);
  const update = sql`
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
    WHERE d.id = v.id`;
  await deferWrite(db, update.compile(db));
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
