import type { Repos } from '../store/db.js';
import type { AttemptWrite, DeliveryRow } from '../store/repos/deliveries.js';
import type { AttemptResult } from './attempt.js';
import type { HeldCompletion, Release } from './dispatcher-deps.js';
import type { DeliveryEvent } from './delivery-events.js';

/** Who started an attempt: the schedule (a claimed due delivery) or a person (a resend). */
export type Trigger = 'scheduled' | 'manual';

export interface Completion {
  deliveryId: string;
  trigger: Trigger;
  url: string;
  startedAt: number;
  result: AttemptResult;
  /** The webhook chaos the attempt was sent with (comma-separated kinds), or null. */
  chaos: string | null;
}

type ResultEvent = Extract<DeliveryEvent, { type: 'delivery.result' }>;

/**
 * Writes a batch of finished attempts and their deliveries' new states (the retry schedule of
 * CONTRACT §5, in seconds), in order, and returns the event that reports each; null for one whose
 * delivery a reset deleted meanwhile. Run by the dispatcher inside the transaction of a batch of
 * completions, from the deliveries' rows the caller read (endLeasesAndFind, with the leases' end):
 * written in two statements on PostgreSQL (issue 27), where it was three per completion.
 */
async function recordCompletions(
  tx: Repos,
  now: number,
  schedule: readonly number[],
  batch: readonly Completion[],
  /** The batch's deliveries (deliveryIdsOf) as read in this transaction; one missing was deleted by a reset. */
  read: readonly DeliveryRow[],
): Promise<(ResultEvent | null)[]> {
  if (!batch.length) return [];
  const rows = new Map(read.map((row) => [row.id, row]));
  const writes: AttemptWrite[] = [];
  const events = batch.map((c) => {
    const row = rows.get(c.deliveryId);
    if (!row) return null; // deleted by a reset meanwhile
    const { write, event } = completionOf(row, now, schedule, c);
    writes.push(write);
    // A second completion of the same delivery in this batch counts from this one's state.
    rows.set(row.id, { ...row, ...write.outcome });
    return event;
  });
  await tx.deliveries.recordAttempts(writes);
  return events;
}

/**
 * The dispatcher's batch, inside its transaction: claims to give back (`release`), then the finished
 * attempts whose claim still holds their delivery. A claim whose lease was lost (this replica was cut
 * off past its lease, another took the delivery) has its late result dropped whole, no attempt row
 * either, so the new holder's state and attempt numbers stand; the receiver may have it twice (at
 * least once).
 */
export async function recordHeldBatch(
  tx: Repos,
  now: number,
  schedule: readonly number[],
  batch: readonly HeldCompletion[],
  release: readonly Release[],
): Promise<(ResultEvent | null)[]> {
  for (const r of release) await tx.deliveries.releaseDelivery(r.id, r.token ?? undefined);
  const leased = batch.flatMap((c) => (c.lease === null ? [] : [{ id: c.deliveryId, token: c.lease }]));
  const ended = await tx.deliveries.endLeasesAndFind(leased, deliveryIdsOf(batch));
  const held = new Set(ended.held);
  const kept = batch.filter((c) => c.lease === null || held.has(c.deliveryId));
  return recordCompletions(tx, now, schedule, kept, ended.rows);
}

/** The deliveries a batch of completions writes, each once. */
function deliveryIdsOf(batch: readonly Completion[]): string[] {
  return [...new Set(batch.map((c) => c.deliveryId))];
}

/** One finished attempt's record, its delivery's new state, and the event that reports it. */
function completionOf(row: DeliveryRow, now: number, schedule: readonly number[], c: Completion): { write: AttemptWrite; event: ResultEvent } {
  const number = row.attempt_count + 1;
  let { status, next_attempt_at: next, scheduled_attempts: scheduled } = row;
  if (c.trigger === 'scheduled') {
    scheduled += 1;
    if (status === 'succeeded') {
      // A manual attempt succeeded while this one was in flight: the delivery is done, whatever
      // this attempt's outcome; it is recorded, and demotes nothing.
      next = null;
    } else if (c.result.ok) {
      status = 'succeeded';
      next = null;
    } else if (c.result.final) {
      status = 'failed';
      next = null;
    } else if (scheduled <= schedule.length) {
      status = 'retrying';
      next = now + schedule[scheduled - 1]! * 1000;
    } else {
      status = 'failed';
      next = null;
    }
  } else if (c.result.ok) {
    // A manual attempt that succeeds ends the delivery (CONTRACT §5): the receiver has the event,
    // and the automatic attempts left would only send it again. One that fails moves nothing.
    status = 'succeeded';
    next = null;
  }
  const write: AttemptWrite = {
    attempt: {
      delivery_id: row.id,
      number,
      trigger: c.trigger,
      url: c.url,
      started_at: c.startedAt,
      duration_ms: Math.round(c.result.durationMs),
      response_status: c.result.responseStatus,
      response_body: c.result.responseBody,
      error: c.result.error,
      chaos: c.chaos,
    },
    outcome: {
      id: row.id,
      url: c.url,
      status,
      attempt_count: number,
      scheduled_attempts: scheduled,
      in_flight: c.trigger === 'scheduled' ? 0 : row.in_flight,
      last_attempt_at: c.startedAt,
      next_attempt_at: next,
      last_response_status: c.result.responseStatus,
      last_error: c.result.error,
      updated_at: now,
    },
  };
  const event: ResultEvent = {
    type: 'delivery.result',
    partnerId: row.partner_id,
    environment: row.environment,
    invoiceId: row.invoice_id,
    startedAt: new Date(c.startedAt).toISOString(),
    deliveryId: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    url: c.url,
    target: row.target,
    attempt: number,
    trigger: c.trigger,
    ok: c.result.ok,
    responseStatus: c.result.responseStatus,
    durationMs: c.result.durationMs,
    error: c.result.error,
    status,
    nextAttemptAt: next === null ? null : new Date(next).toISOString(),
  };
  return { write, event };
}
