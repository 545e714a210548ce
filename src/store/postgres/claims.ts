import { sql } from 'kysely';
import type { EngineStatements } from '../engine.js';
import type { DeliveryRow, Lease, ListenerScope } from '../repos/deliveries.js';
import { postgresBatches } from './batches.js';
import { type PgHandle, touched } from './handle.js';
import { RECEIVER_SQL_POSTGRES, receiverOf } from '../../domain/receiver.js';

// PostgreSQL's own statements (../engine.ts EngineStatements): the claims of due deliveries, which
// lock the rows they take with FOR UPDATE SKIP LOCKED (concurrent claimers, of this replica or
// others, never take the same delivery, and none waits for another's rows), and the lock of a meta
// entry.

/** A delivery's receiver (`receiverOf`: scheme, host and port), as SQL on its `url`. */
const RECEIVER = sql.raw(RECEIVER_SQL_POSTGRES);

/**
 * Now on the database's clock, in ms: leases are measured there (CONTRACT §12), so that a replica
 * whose clock runs ahead neither takes live claims nor leaves ones that outlast it for hours.
 */
const DB_NOW = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** When a lease taken now ends, on the database's clock; null for a claim without one. */
const leaseEnd = (lease: Lease | undefined) => (lease ? sql<number>`${DB_NOW} + ${lease.ms}` : null);

/** PostgreSQL's statements on `db` (the pool's kysely, or one transaction's). */
export function postgresStatements(db: PgHandle): EngineStatements {
  return {
    claimDue: (...args) => claimDue(db, ...args),
    claimDueForUrl: (...args) => claimDueForUrl(db, ...args),
    lockMeta: (key) => lockMeta(db, key),
    releaseExpiredLeases: async (leaseMs) =>
      touched(
        await db
          .updateTable('deliveries')
          .set({ in_flight: 0, lease_token: null, lease_until: null })
          .where('in_flight', '=', 1)
          // A claim of this release always has a lease: one without (or another program's) is let go too.
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', DB_NOW), eb('lease_until', '>', sql<number>`${DB_NOW} + ${leaseMs}`)]))
          .executeTakeFirst(),
      ),
    renewLeases: async (owner, leaseMs) =>
      touched(
        await db
          .updateTable('deliveries')
          .set({ lease_until: sql<number>`${DB_NOW} + ${leaseMs}` })
          .where('in_flight', '=', 1)
          .where('lease_token', 'like', `${owner}.%`)
          .executeTakeFirst(),
      ),
    batch: postgresBatches(db),
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
 * savepoint is rolled back (its lock timeout with it) and the transaction goes on; once taken, the
 * connection's own timeout is back (connect.ts: writes give up after 5 s). Outside a
 * transaction a turn would end with its own statement: none is taken.
 */
async function takeClaimTurn(db: PgHandle): Promise<void> {
  if (!db.isTransaction) return;
  try {
    await sql`SAVEPOINT claim_turn; SET LOCAL lock_timeout = ${sql.lit(CLAIM_TURN_WAIT)}; SELECT pg_advisory_xact_lock(${sql.lit(CLAIM_LOCK)}); SET LOCAL lock_timeout = DEFAULT`.execute(
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
async function claimDue(
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
    UPDATE deliveries d SET in_flight = 1, lease_token = ${lease?.token ?? null}, lease_until = ${leaseEnd(lease)}
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
async function claimDueForUrl(
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
    UPDATE deliveries d SET in_flight = 1, lease_token = ${lease?.token ?? null}, lease_until = ${leaseEnd(lease)}
    FROM taken WHERE d.id = taken.id
    RETURNING d.*`.execute(db);
  return inQueueOrder(rows);
}

/**
 * Holds `key`'s entry until the transaction ends, for a read-modify-write that replicas may run at
 * once: a fault's `times` counted across them, the default identity written at a first start. The
 * advisory lock holds even while the entry does not exist yet (FOR UPDATE locks no row then: two
 * replicas starting together on an empty database each wrote an identity of their own, issue 28);
 * its two-key form cannot meet the migration's one-key lock. Outside a transaction, nothing.
 */
async function lockMeta(db: PgHandle, key: string): Promise<void> {
  if (!db.isTransaction) return;
  await sql`SELECT pg_advisory_xact_lock(${sql.lit(META_LOCK_SPACE)}, hashtext(${key}))`.execute(db);
  await db.selectFrom('meta').select('key').where('key', '=', key).forUpdate().execute();
}

/** The first key of meta's advisory locks ('svcm'); the second is the entry's name, hashed. */
const META_LOCK_SPACE = 0x7376636d;
