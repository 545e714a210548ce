import type BetterSqlite3 from 'better-sqlite3';
import type { Insertable, Selectable } from 'kysely';
import type { Environment } from '../../domain/environment.js';
import { RECEIVER_SQL_SQLITE, receiverOf } from '../../domain/receiver.js';
import { DUE_DELIVERY, LEASED_DELIVERY, param, prepared, preparedByShape } from '../query.js';
import type { DeliveriesTable, DeliveryAttemptsTable } from '../schema.js';
import type { Store } from '../store.js';
import type { ListPage } from './merchants.js';

export type DeliveryRow = Selectable<DeliveriesTable>;
export type AttemptRow = Selectable<DeliveryAttemptsTable>;
export type NewDelivery = Omit<Insertable<DeliveriesTable>, 'seq'>;

const insert = prepared((qb) =>
  qb.insertInto('deliveries').values({
    id: param('id'),
    event_id: param('event_id'),
    event_type: param('event_type'),
    invoice_id: param('invoice_id'),
    merchant_id: param('merchant_id'),
    partner_id: param('partner_id'),
    environment: param('environment'),
    target: param('target'),
    url: param('url'),
    status: param('status'),
    attempt_count: param('attempt_count'),
    scheduled_attempts: param('scheduled_attempts'),
    in_flight: param('in_flight'),
    last_attempt_at: param('last_attempt_at'),
    next_attempt_at: param('next_attempt_at'),
    last_response_status: param('last_response_status'),
    last_error: param('last_error'),
    created_at: param('created_at'),
    updated_at: param('updated_at'),
  }),
);
const byId = prepared((qb) => qb.selectFrom('deliveries').selectAll().where('id', '=', param('id')));
const attemptsOf = prepared((qb) => qb.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', param('id')).orderBy('number'));
const nextDue = prepared((qb) =>
  qb
    .selectFrom('deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where(DUE_DELIVERY),
);
const clearInFlight = prepared((qb) => qb.updateTable('deliveries').set({ in_flight: 0, lease_token: null, lease_until: null }).where('in_flight', '=', 1));
const insertAttempt = prepared((qb) =>
  qb.insertInto('delivery_attempts').values({
    delivery_id: param('delivery_id'),
    number: param('number'),
    trigger: param('trigger'),
    url: param('url'),
    started_at: param('started_at'),
    duration_ms: param('duration_ms'),
    response_status: param('response_status'),
    response_body: param('response_body'),
    error: param('error'),
    chaos: param('chaos'),
  }),
);
const saveOutcome = prepared((qb) =>
  qb
    .updateTable('deliveries')
    .set({
      url: param('url'),
      status: param('status'),
      attempt_count: param('attempt_count'),
      scheduled_attempts: param('scheduled_attempts'),
      in_flight: param('in_flight'),
      last_attempt_at: param('last_attempt_at'),
      next_attempt_at: param('next_attempt_at'),
      last_response_status: param('last_response_status'),
      last_error: param('last_error'),
      updated_at: param('updated_at'),
    })
    .where('id', '=', param('id')),
);

export function insertDelivery(store: Store, row: NewDelivery): void {
  insert.run(store, { ...row });
}

export function findDelivery(store: Store, id: string): DeliveryRow | undefined {
  return byId.get(store, { id });
}

export function attemptsOfDelivery(store: Store, id: string): AttemptRow[] {
  return attemptsOf.all(store, { id });
}

/** When the next delivery falls due, or null. */
export function nextDeliveryDueAt(store: Store): number | null {
  return nextDue.get(store)?.at ?? null;
}

const nextDueAfter = prepared((qb) =>
  qb
    .selectFrom('deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where(DUE_DELIVERY)
    .where('next_attempt_at', '>', param('now')),
);

/** The first due instant strictly after `now`, or null. */
export function nextDeliveryDueAfter(store: Store, now: number): number | null {
  return nextDueAfter.get(store, { now })?.at ?? null;
}

const unleased = { in_flight: 0, lease_token: null, lease_until: null } as const;
const releaseOne = prepared((qb) => qb.updateTable('deliveries').set(unleased).where('id', '=', param('id')).where('in_flight', '=', 1));
const releaseOneHeld = prepared((qb) =>
  qb.updateTable('deliveries').set(unleased).where('id', '=', param('id')).where('in_flight', '=', 1).where('lease_token', '=', param('token')),
);

/**
 * A claimed delivery whose attempt could not start (a database error): due again, unchanged. With
 * its claim's `token`, only while that claim still holds it (not once another replica re-claimed it).
 */
export function releaseDelivery(store: Store, id: string, token?: string): void {
  if (token === undefined) releaseOne.run(store, { id });
  else releaseOneHeld.run(store, { id, token });
}

/** A claim: its token (one per claim statement) and when its lease ends (wall-clock ms). */
export interface Lease {
  token: string;
  until: number;
}

/**
 * Which listener deliveries a claim may take (PostgreSQL's replicas, CONTRACT §12): those of the
 * listeners whose stream this replica holds (`here`, `partnerId:environment`), and those of listeners
 * no other replica holds a live stream of (they fail `listener_unavailable` here as anywhere). The
 * streams are the `listener_streams` table (webhooks/shared-listener-presence.ts). SQLite: one
 * process holds every stream, so it never passes one.
 */
export interface ListenerScope {
  replica: string;
  here: string[];
  /** Wall-clock ms: a stream row whose lease ended before it belongs to a dead replica. */
  wallNow: number;
}

const releaseExpired = prepared((qb) => qb.updateTable('deliveries').set(unleased).where(LEASED_DELIVERY).where('lease_until', '<=', param('now')));

/**
 * Claims whose lease ended by `wallNow` (wall-clock ms) are let go: due again, attempt count
 * unchanged (the attempt was never recorded). The holder died, or lost its way to the database.
 * Reads only the claimed rows (the partial index deliveries_leased). Rows claimed without a lease
 * (tests of the repository alone) never expire.
 */
export function releaseExpiredLeases(store: Store, wallNow: number): number {
  return releaseExpired.run(store, { now: wallNow }).changes;
}

const renew = prepared((qb) =>
  qb
    .updateTable('deliveries')
    .set({ lease_until: param('until') })
    .where(LEASED_DELIVERY)
    .where('lease_token', 'like', param('pattern')),
);

/**
 * Extends to `until` every lease the claimer `owner` holds (its tokens are `<owner>.<n>`; the
 * owner a UUID, free of LIKE's wildcards): an attempt may outlast a lease (a timeout of up to 60 s, chaos holds of up to 60 s,
 * a database that refuses the result for a while). A claim already released and re-claimed carries
 * another token, and is not touched. Reads only the claimed rows (deliveries_leased).
 */
export function renewLeases(store: Store, owner: string, until: number): number {
  return renew.run(store, { pattern: `${owner}.%`, until }).changes;
}

const endOne = prepared((qb) =>
  qb
    .updateTable('deliveries')
    .set({ lease_token: null, lease_until: null })
    .where('id', '=', param('id'))
    .where('in_flight', '=', 1)
    .where('lease_token', '=', param('token')),
);

/** A claimed delivery and the token of the claim that took it. */
export interface Held {
  id: string;
  token: string;
}

/**
 * Before a batch of results is written: which of the deliveries `held` their claim still holds (its
 * lease was not released and taken by another claim); their leases end, and each result's write
 * clears `in_flight`. On PostgreSQL those rows stay locked until the transaction ends, so no one can
 * release and re-claim them between this check and that write. Returns the ids still held.
 */
export function endLeases(store: Store, held: readonly Held[]): string[] {
  return held.filter((h) => endOne.run(store, { id: h.id, token: h.token }).changes > 0).map((h) => h.id);
}

/** At start: attempts that were running when the process died are due again. */
export function releaseInFlight(store: Store): number {
  return clearInFlight.run(store).changes;
}

/**
 * Claims up to `limit` due deliveries (marking them in flight) in one statement, at most `perUrl`
 * in flight per receiver (its scheme, host and port: `receiverOf`, issue 40), counting those
 * already running (`busy`, by receiver: the dispatcher's own counts; counting in SQL would scan the
 * table). A dead receiver's backlog must not fill the queue for everyone else, even when a thousand
 * of its retries fall due at once, nor one tenant's URLs cycling `?n=1`, `?n=2`, … to one receiver.
 * Partners take turns among the rows chosen: each partner's oldest first, then each one's second…,
 * so that one tenant's backlog does not hold another's deliveries back.
 *
 * Receivers already at their cap are left out of the candidates, and only the oldest few times
 * `limit` candidates are ranked: ranking every due row on every claim made a 10,000-delivery burst
 * O(n²). Whatever is left out is still due, and the next claim takes it.
 */
export function claimDue(
  store: Store,
  now: number,
  limit: number,
  perUrl: number,
  busy: ReadonlyMap<string, number>,
  lease?: Lease,
  _listeners?: ListenerScope,
): DeliveryRow[] {
  const saturated = [...busy].filter(([, n]) => n >= perUrl).map(([receiver]) => receiver);
  return statementsFor(store).general.all({
    now,
    limit,
    perUrl,
    scan: Math.min(1024, Math.max(64, limit * 4)),
    busy: JSON.stringify(Object.fromEntries(busy)),
    saturated: JSON.stringify(saturated),
    token: lease?.token ?? null,
    until: lease?.until ?? null,
  });
}

/** A delivery's receiver (`receiverOf`), as SQL on its `url`. */
const RECEIVER = RECEIVER_SQL_SQLITE;

const CLAIM_SQL = `
  WITH busy AS (
    SELECT key AS receiver, value AS n FROM json_each(@busy)
  ), candidates AS (
    SELECT id, ${RECEIVER} AS receiver, partner_id, next_attempt_at, seq FROM deliveries INDEXED BY deliveries_due
    WHERE status IN ('pending', 'retrying') AND in_flight = 0 AND next_attempt_at <= @now
      AND ${RECEIVER} NOT IN (SELECT value FROM json_each(@saturated))
    ORDER BY next_attempt_at LIMIT @scan
  ), due AS (
    SELECT id, receiver, partner_id, next_attempt_at, seq, ROW_NUMBER() OVER (PARTITION BY receiver ORDER BY next_attempt_at, seq) AS rn
    FROM candidates
  ), chosen AS (
    SELECT due.id, due.next_attempt_at, ROW_NUMBER() OVER (PARTITION BY due.partner_id ORDER BY due.next_attempt_at, due.seq) AS turn
    FROM due LEFT JOIN busy ON busy.receiver = due.receiver
    WHERE due.rn + COALESCE(busy.n, 0) <= @perUrl
  )
  UPDATE deliveries SET in_flight = 1, lease_token = @token, lease_until = @until
  WHERE id IN (SELECT id FROM chosen ORDER BY turn, next_attempt_at LIMIT @limit)
  RETURNING *`;

/**
 * The claim for one receiver (a slot of it was freed): its oldest few due rows, walked in due order
 * (up to `now`: a dead receiver's retries, due later, are not walked); partners take turns among
 * them as in the general claim, so another tenant's deliveries wait behind at most `scan` of one
 * tenant's backlog.
 */
const CLAIM_FOR_RECEIVER_SQL = `
  WITH due AS (
    SELECT id, partner_id, next_attempt_at, seq FROM deliveries INDEXED BY deliveries_due
    WHERE status IN ('pending', 'retrying') AND in_flight = 0 AND next_attempt_at <= @now AND ${RECEIVER} = @receiver
    ORDER BY next_attempt_at LIMIT @scan
  ), chosen AS (
    SELECT id, next_attempt_at, ROW_NUMBER() OVER (PARTITION BY partner_id ORDER BY next_attempt_at, seq) AS turn FROM due
  )
  UPDATE deliveries SET in_flight = 1, lease_token = @token, lease_until = @until
  WHERE id IN (SELECT id FROM chosen ORDER BY turn, next_attempt_at LIMIT @limit)
  RETURNING *`;

/**
 * Claims up to `limit` due deliveries of the receiver of `url` (a slot of that receiver was freed).
 * `perUrl`: PostgreSQL also caps by the receiver's in-flight rows of every replica; on SQLite one
 * process holds every claim, and the caller's `limit` already counts them.
 */
export function claimDueForUrl(
  store: Store,
  url: string,
  now: number,
  limit: number,
  lease?: Lease,
  _perUrl?: number,
  _listeners?: ListenerScope,
): DeliveryRow[] {
  return statementsFor(store).forReceiver.all({
    receiver: receiverOf(url),
    now,
    limit,
    scan: Math.min(1024, Math.max(64, limit * 4)),
    token: lease?.token ?? null,
    until: lease?.until ?? null,
  });
}

type ClaimArgs = { now: number; limit: number; perUrl: number; scan: number; busy: string; saturated: string; token: string | null; until: number | null };
type ReceiverArgs = { receiver: string; now: number; limit: number; scan: number; token: string | null; until: number | null };
// `RETURNING *` of the deliveries table: its rows are DeliveryRow (the table's kysely type).
type Statements = { general: BetterSqlite3.Statement<[ClaimArgs], DeliveryRow>; forReceiver: BetterSqlite3.Statement<[ReceiverArgs], DeliveryRow> };
// Window functions and CTEs are beyond what the query builder expresses cleanly: plain SQL, prepared once.
const claimStatements = new WeakMap<Store['sqlite'], Statements>();

function statementsFor(store: Store): Statements {
  let statements = claimStatements.get(store.sqlite);
  if (!statements) {
    statements = {
      general: store.sqlite.prepare<[ClaimArgs], DeliveryRow>(CLAIM_SQL),
      forReceiver: store.sqlite.prepare<[ReceiverArgs], DeliveryRow>(CLAIM_FOR_RECEIVER_SQL),
    };
    claimStatements.set(store.sqlite, statements);
  }
  return statements;
}

export type AttemptRecord = Omit<Insertable<DeliveryAttemptsTable>, 'id'>;
export type DeliveryOutcome = Pick<
  DeliveryRow,
  | 'id'
  | 'url'
  | 'status'
  | 'attempt_count'
  | 'scheduled_attempts'
  | 'in_flight'
  | 'last_attempt_at'
  | 'next_attempt_at'
  | 'last_response_status'
  | 'last_error'
  | 'updated_at'
>;

/** Writes an attempt and the delivery's new state together. */
export function recordAttempt(store: Store, attempt: AttemptRecord, outcome: DeliveryOutcome): void {
  insertAttempt.run(store, { ...attempt });
  saveOutcome.run(store, { ...outcome });
}

/** An attempt and its delivery's new state: one of the batch recordAttempts writes. */
export interface AttemptWrite {
  attempt: AttemptRecord;
  outcome: DeliveryOutcome;
}

/**
 * A batch of recordAttempt, in order (the dispatcher's flush). On PostgreSQL two statements for the
 * whole batch; here each is microseconds anyway.
 */
export function recordAttempts(store: Store, writes: readonly AttemptWrite[]): void {
  for (const { attempt, outcome } of writes) recordAttempt(store, attempt, outcome);
}

/**
 * The deliveries of `ids` that exist (in no particular order), then endLeases of `held`: what a
 * batch of results needs before it is written, one statement on PostgreSQL. The rows are read as
 * they were before the leases ended.
 */
export function endLeasesAndFind(store: Store, held: readonly Held[], ids: readonly string[]): { held: string[]; rows: DeliveryRow[] } {
  const rows = ids.flatMap((id) => byId.get(store, { id }) ?? []);
  return { held: endLeases(store, held), rows };
}

export interface DeliveryFilter {
  partnerId: string;
  environment: Environment;
  status?: string | undefined;
  eventType?: string | undefined;
  invoiceId?: string | undefined;
  merchantId?: string | undefined;
}

const list = preparedByShape(['status', 'eventType', 'invoice', 'merchant', 'before'], (qb, on) => {
  let q = qb.selectFrom('deliveries').selectAll().where('partner_id', '=', param('partner_id')).where('environment', '=', param('environment'));
  if (on.status) q = q.where('status', '=', param('status'));
  if (on.eventType) q = q.where('event_type', '=', param('event_type'));
  if (on.invoice) q = q.where('invoice_id', '=', param('invoice_id'));
  if (on.merchant) q = q.where('merchant_id', '=', param('merchant_id'));
  if (on.before) q = q.where('seq', '<', param('before_seq'));
  return q.orderBy('seq', 'desc').limit(param('limit'));
});

export function listDeliveries(store: Store, filter: DeliveryFilter, page: ListPage): DeliveryRow[] {
  const shape = {
    status: Boolean(filter.status),
    eventType: Boolean(filter.eventType),
    invoice: Boolean(filter.invoiceId),
    merchant: Boolean(filter.merchantId),
    before: page.beforeSeq !== undefined,
  };
  return list.all(store, shape, {
    partner_id: filter.partnerId,
    environment: filter.environment,
    status: filter.status,
    event_type: filter.eventType,
    invoice_id: filter.invoiceId,
    merchant_id: filter.merchantId,
    before_seq: page.beforeSeq,
    limit: page.limit + 1,
  });
}
