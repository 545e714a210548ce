import type { Insertable, Selectable } from 'kysely';
import type { Environment } from '../../domain/environment.js';
import { DUE_DELIVERY, param, prepared, preparedByShape } from '../query.js';
import type { DeliveriesTable, DeliveryAttemptsTable } from '../schema.js';
import type { Runner } from '../engine.js';
import { holdsNul } from './lookups.js';
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

export async function insertDelivery(db: Runner, row: NewDelivery): Promise<void> {
  await db.run(insert, { ...row });
}

export async function findDelivery(db: Runner, id: string): Promise<DeliveryRow | undefined> {
  if (holdsNul(id)) return undefined;
  return db.get(byId, { id });
}

export async function attemptsOfDelivery(db: Runner, id: string): Promise<AttemptRow[]> {
  if (holdsNul(id)) return [];
  return db.all(attemptsOf, { id });
}

/** When the next delivery falls due, or null. */
export async function nextDeliveryDueAt(db: Runner): Promise<number | null> {
  return (await db.get(nextDue))?.at ?? null;
}

const nextDueAfter = prepared((qb) =>
  qb
    .selectFrom('deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where(DUE_DELIVERY)
    .where('next_attempt_at', '>', param('now')),
);

/** The first due instant strictly after `now`, or null. */
export async function nextDeliveryDueAfter(db: Runner, now: number): Promise<number | null> {
  return (await db.get(nextDueAfter, { now }))?.at ?? null;
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
export async function releaseDelivery(db: Runner, id: string, token?: string): Promise<void> {
  if (token === undefined) await db.run(releaseOne, { id });
  else await db.run(releaseOneHeld, { id, token });
}

/**
 * A claim's lease: its token (one per claim statement) and how long it lasts (ms). Its end is
 * measured on the store's clock when the claim is taken or renewed (PostgreSQL's, whatever each
 * replica's clock says: CONTRACT §12 "bounded claims"), never on the emulator clock.
 */
export interface Lease {
  token: string;
  ms: number;
}

/**
 * Which listener deliveries a claim may take (PostgreSQL's replicas, CONTRACT §12): those of the
 * listeners whose stream this replica holds (`here`, `partnerId:environment`), and those of listeners
 * no other replica holds a live stream of (they fail `listener_unavailable` here as anywhere). The
 * streams are the `listener_streams` table (store/postgres/listener-presence.ts). SQLite: one
 * process holds every stream, so it never passes one.
 */
export interface ListenerScope {
  replica: string;
  here: string[];
  /** Wall-clock ms: a stream row whose lease ended before it belongs to a dead replica. */
  wallNow: number;
}

/**
 * Claims whose lease ended on the store's clock are let go: due again, attempt count unchanged (the
 * attempt was never recorded); the holder died, or lost its way to the database. So is a lease that
 * ends more than `leaseMs` from now, which no claim or renewal makes (a row from elsewhere): a lease
 * never lasts longer than one lease length after it was taken or renewed.
 */
export async function releaseExpiredLeases(db: Runner, leaseMs: number): Promise<number> {
  return db.own.releaseExpiredLeases(leaseMs);
}

/**
 * Extends by `leaseMs` from now (the store's clock) every lease the claimer `owner` holds (its tokens
 * are `<owner>.<n>`; the owner a UUID, free of LIKE's wildcards): an attempt may outlast a lease (a
 * timeout of up to 60 s, chaos holds of up to 60 s, a database that refuses the result for a while).
 * A claim already released and re-claimed carries another token, and is not touched.
 */
export async function renewLeases(db: Runner, owner: string, leaseMs: number): Promise<number> {
  return db.own.renewLeases(owner, leaseMs);
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
export async function endLeases(db: Runner, held: readonly Held[]): Promise<string[]> {
  const ended: string[] = [];
  for (const h of held) if ((await db.run(endOne, { id: h.id, token: h.token })) > 0) ended.push(h.id);
  return ended;
}

/** At start: attempts that were running when the process died are due again. */
export async function releaseInFlight(db: Runner): Promise<number> {
  return db.run(clearInFlight);
}

/**
 * Claims up to `limit` due deliveries (marking them in flight) in one statement, at most `perUrl`
 * in flight per receiver (its scheme, host and port: `receiverOf`, issue 40), counting those
 * already running (`busy`, by receiver: the dispatcher's own counts; counting in SQL would scan the
 * table). A dead receiver's backlog must not fill the queue for everyone else, even when a thousand
 * of its retries fall due at once, nor one tenant's URLs cycling `?n=1`, `?n=2`, … to one receiver.
 * Partners take turns among the rows chosen: each partner's oldest first, then each one's second…,
 * so that one tenant's backlog does not hold another's deliveries back. Each engine writes it in its
 * own SQL (../engine.ts EngineStatements: sqlite/claims.ts, postgres/claims.ts): window functions and
 * JSON differ, and PostgreSQL's replicas lock what they take and count each other's claims.
 */
export function claimDue(
  db: Runner,
  now: number,
  limit: number,
  perUrl: number,
  busy: ReadonlyMap<string, number>,
  lease?: Lease,
  listeners?: ListenerScope,
): Promise<DeliveryRow[]> {
  return db.own.claimDue(now, limit, perUrl, busy, lease, listeners);
}

/**
 * Claims up to `limit` due deliveries of the receiver of `url` (a slot of that receiver was freed).
 * `perUrl`: the receiver's room across replicas, where several share the queue.
 */
export function claimDueForUrl(
  db: Runner,
  url: string,
  now: number,
  limit: number,
  lease?: Lease,
  perUrl?: number,
  listeners?: ListenerScope,
): Promise<DeliveryRow[]> {
  return db.own.claimDueForUrl(url, now, limit, lease, perUrl, listeners);
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
export async function recordAttempt(db: Runner, attempt: AttemptRecord, outcome: DeliveryOutcome): Promise<void> {
  await db.run(insertAttempt, { ...attempt });
  await db.run(saveOutcome, { ...outcome });
}

/** An attempt and its delivery's new state: one of the batch recordAttempts writes. */
export interface AttemptWrite {
  attempt: AttemptRecord;
  outcome: DeliveryOutcome;
}

/** A batch of recordAttempt, in order (the dispatcher's flush): one statement each, or the engine's batch. */
export async function recordAttempts(db: Runner, writes: readonly AttemptWrite[]): Promise<void> {
  if (db.own.batch) return db.own.batch.recordAttempts(writes);
  for (const { attempt, outcome } of writes) await recordAttempt(db, attempt, outcome);
}

/**
 * The deliveries of `ids` that exist (in no particular order), then endLeases of `held`: what a
 * batch of results needs before it is written (one statement where the engine has a batch). The
 * rows are read as they were before the leases ended.
 */
export async function endLeasesAndFind(db: Runner, held: readonly Held[], ids: readonly string[]): Promise<{ held: string[]; rows: DeliveryRow[] }> {
  if (db.own.batch) return db.own.batch.endLeasesAndFind(held, ids);
  const rows: DeliveryRow[] = [];
  for (const id of ids) {
    const row = await db.get(byId, { id });
    if (row) rows.push(row);
  }
  return { held: await endLeases(db, held), rows };
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

export async function listDeliveries(db: Runner, filter: DeliveryFilter, page: ListPage): Promise<DeliveryRow[]> {
  const shape = {
    status: Boolean(filter.status),
    eventType: Boolean(filter.eventType),
    invoice: Boolean(filter.invoiceId),
    merchant: Boolean(filter.merchantId),
    before: page.beforeSeq !== undefined,
  };
  return db.all(list.shape(shape), {
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
