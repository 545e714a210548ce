import { sql } from 'kysely';
import type { Environment } from '../../domain/environment.js';
import type { PgHandle } from './handle.js';
import { touched } from './handle.js';

/**
 * `svc webhook listen` across replicas on PostgreSQL (CONTRACT §12, migration 0004-listener-streams):
 * which replica holds a stream of which listener, and the results a replica waits for. Both tables
 * are PostgreSQL's alone (SQLite's one process keeps this in memory), typed here like `snapshots`.
 */
interface ListenerStreamsTable {
  replica_id: string;
  partner_id: string;
  environment: string;
  /** Wall-clock ms; renewed by the holder, so a row past it is a dead replica's. */
  lease_until: number;
}

interface ListenerResultsTable {
  request_id: string;
  partner_id: string;
  environment: string;
  replica_id: string;
  /** The listener's report as JSON, once posted to a replica other than the waiting one. */
  result: string | null;
  created_at: number;
}

const withTables = (db: PgHandle) => db.withTables<{ listener_streams: ListenerStreamsTable; listener_results: ListenerResultsTable }>();

/** A listener, as the claim's scope names it. */
export interface ListenerKey {
  partnerId: string;
  environment: Environment;
}

/** Records (or renews) that `replica` holds streams of `keys`, until `until`: one statement. */
export async function holdStreams(db: PgHandle, replica: string, keys: readonly ListenerKey[], until: number): Promise<void> {
  if (!keys.length) return;
  await sql`
    INSERT INTO listener_streams (replica_id, partner_id, environment, lease_until)
    SELECT ${replica}, k.partner_id, k.environment, ${until}::bigint
    FROM unnest(${keys.map((k) => k.partnerId)}::text[], ${keys.map((k) => k.environment)}::text[]) AS k(partner_id, environment)
    ON CONFLICT (replica_id, partner_id, environment) DO UPDATE SET lease_until = EXCLUDED.lease_until`.execute(db);
}

/** `replica` holds no stream of the listener any more. */
export async function dropStream(db: PgHandle, replica: string, key: ListenerKey): Promise<void> {
  await withTables(db)
    .deleteFrom('listener_streams')
    .where('replica_id', '=', replica)
    .where('partner_id', '=', key.partnerId)
    .where('environment', '=', key.environment)
    .execute();
}

/** Every row of `replica` (a clean stop). */
export async function dropReplicaStreams(db: PgHandle, replica: string): Promise<void> {
  await withTables(db).deleteFrom('listener_streams').where('replica_id', '=', replica).execute();
}

/**
 * Whether a replica other than `replica` holds a stream of the listener. An expired row counts until
 * a sweep removes it (sweepExpiredStreams): the sweep is what starts the listener's reconnect window.
 */
export async function streamElsewhere(db: PgHandle, replica: string, key: ListenerKey): Promise<boolean> {
  const row = await withTables(db)
    .selectFrom('listener_streams')
    .select('replica_id')
    .where('partner_id', '=', key.partnerId)
    .where('environment', '=', key.environment)
    .where('replica_id', '<>', replica)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Removes the rows of dead replicas (lease ended by `wallNow`) and starts their listeners' reconnect
 * windows at `now` (emulator time), in one statement: between a removal and a separate touch, a
 * replica judging the window would see neither the stream nor a recent touch, and remove a
 * listener whose window had not started. Answers the listeners touched.
 */
export async function sweepExpiredStreams(db: PgHandle, wallNow: number, now: number): Promise<ListenerKey[]> {
  const { rows } = await sql<{ partner_id: string; environment: Environment }>`
    WITH gone AS (DELETE FROM listener_streams WHERE lease_until <= ${wallNow} RETURNING partner_id, environment)
    UPDATE listeners l SET updated_at = ${now}::bigint FROM (SELECT DISTINCT partner_id, environment FROM gone) g
    WHERE l.partner_id = g.partner_id AND l.environment = g.environment
    RETURNING l.partner_id, l.environment`.execute(db);
  return rows.map((r) => ({ partnerId: r.partner_id, environment: r.environment }));
}

/** `replica` waits for the result of `requestId`, which only the listener's partner and environment may post. */
export async function expectResult(db: PgHandle, requestId: string, key: ListenerKey, replica: string, wallNow: number): Promise<void> {
  await withTables(db)
    .insertInto('listener_results')
    .values({ request_id: requestId, partner_id: key.partnerId, environment: key.environment, replica_id: replica, result: null, created_at: wallNow })
    .execute();
}

/**
 * A result posted to a replica that does not wait for it: stored for the one that does, once, and
 * only from the delivery's partner and environment (CONTRACT §8). False: nobody waits for it.
 */
export async function postResult(db: PgHandle, requestId: string, from: ListenerKey, result: string): Promise<boolean> {
  const done = await withTables(db)
    .updateTable('listener_results')
    .set({ result })
    .where('request_id', '=', requestId)
    .where('partner_id', '=', from.partnerId)
    .where('environment', '=', from.environment)
    .where('result', 'is', null)
    .executeTakeFirst();
  return touched(done) > 0;
}

/** The waiting replica takes the results posted elsewhere for `requestIds` (the rows go). */
export async function takeResults(db: PgHandle, replica: string, requestIds: readonly string[]): Promise<{ requestId: string; result: string }[]> {
  if (!requestIds.length) return [];
  const rows = await withTables(db)
    .deleteFrom('listener_results')
    .where('replica_id', '=', replica)
    .where('request_id', 'in', requestIds)
    .where('result', 'is not', null)
    .returning(['request_id', 'result'])
    .execute();
  return rows.map((r) => ({ requestId: r.request_id, result: r.result ?? '' }));
}

/** Nobody waits for these any more (settled here, timed out, abandoned): a late post is refused. */
export async function forgetResults(db: PgHandle, requestIds: readonly string[]): Promise<void> {
  if (!requestIds.length) return;
  await withTables(db).deleteFrom('listener_results').where('request_id', 'in', requestIds).execute();
}

/** Rows older than `before` (wall-clock ms): their replica died waiting. */
export async function sweepOldResults(db: PgHandle, before: number): Promise<number> {
  return touched(await withTables(db).deleteFrom('listener_results').where('created_at', '<', before).executeTakeFirst());
}
