import type { Repos } from '../store/db.js';
import type { AttemptResult } from './attempt.js';
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

/**
 * Writes one finished attempt and the delivery's new state (the retry schedule of CONTRACT §5, in
 * seconds), and returns the event that reports it; null when a reset deleted the delivery meanwhile.
 * Run by the dispatcher inside the transaction of a batch of completions.
 */
export async function recordCompletion(
  tx: Repos,
  now: number,
  schedule: readonly number[],
  c: Completion,
): Promise<Extract<DeliveryEvent, { type: 'delivery.result' }> | null> {
  const row = await tx.deliveries.findDelivery(c.deliveryId);
  if (!row) return null; // deleted by a reset meanwhile
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
  await tx.deliveries.recordAttempt(
    {
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
    {
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
  );
  return {
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
}
