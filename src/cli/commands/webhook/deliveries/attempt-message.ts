import { ATTEMPT_TRIGGERS, DELIVERY_STATUSES, DELIVERY_TARGETS, ENVIRONMENTS } from '../../../../contract/enums.js';
import type { AttemptLine } from '../../../views/delivery.js';

/**
 * The stream's `attempt` message (a `delivery.result` event, contract `DeliveryAttemptEvent`) in
 * tail's stable shape, partner id and event type left out; null when it has another shape (the CLI
 * may talk to another version of the emulator). Checked by hand, not with the contract's zod schema:
 * tail's start-up does not load zod, and this is the one message it reads.
 */
export function attemptLineOf(value: unknown): AttemptLine | null {
  if (typeof value !== 'object' || value === null) return null;
  const f = (key: string): unknown => Reflect.get(value, key);
  const deliveryId = f('deliveryId');
  const eventId = f('eventId');
  const eventType = f('eventType');
  const invoiceId = f('invoiceId');
  const url = f('url');
  const startedAt = f('startedAt');
  if (typeof deliveryId !== 'string' || typeof eventId !== 'string' || typeof eventType !== 'string') return null;
  if (typeof invoiceId !== 'string' || typeof url !== 'string' || typeof startedAt !== 'string') return null;
  const environment = oneOf(ENVIRONMENTS, f('environment'));
  const target = oneOf(DELIVERY_TARGETS, f('target'));
  const trigger = oneOf(ATTEMPT_TRIGGERS, f('trigger'));
  const status = oneOf(DELIVERY_STATUSES, f('status'));
  if (environment === null || target === null || trigger === null || status === null) return null;
  const attempt = f('attempt');
  const durationMs = f('durationMs');
  const responseStatus = f('responseStatus');
  const ok = f('ok');
  const error = f('error');
  const nextAttemptAt = f('nextAttemptAt');
  if (typeof attempt !== 'number' || typeof durationMs !== 'number' || typeof ok !== 'boolean') return null;
  if (!(responseStatus === null || typeof responseStatus === 'number')) return null;
  if (!(error === null || typeof error === 'string') || !(nextAttemptAt === null || typeof nextAttemptAt === 'string')) return null;
  return {
    deliveryId,
    eventId,
    eventType,
    invoiceId,
    environment,
    url,
    target,
    attempt,
    trigger,
    startedAt,
    durationMs,
    responseStatus,
    ok,
    error,
    status,
    nextAttemptAt,
  };
}

/** `value` when it is one of `choices` (a closed list of the contract's enums), else null. */
function oneOf<T extends string>(choices: readonly T[], value: unknown): T | null {
  return choices.find((choice) => choice === value) ?? null;
}
