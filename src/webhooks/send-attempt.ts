import { wallClockSeconds } from '../clock/clock.js';
import type { DeliveryRow } from '../store/repos/deliveries.js';
import type { EventRow } from '../store/repos/events.js';
import { parseCustomHeaders } from '../store/json-columns.js';
import type { AttemptResult } from './attempt.js';
import { type ChaosDecision, STALE_SECONDS } from './chaos.js';
import type { Trigger } from './completion.js';
import { deliveryHeaders } from './delivery-headers.js';
import type { DispatcherDeps } from './dispatcher-deps.js';

/** One attempt of a delivery, as the dispatcher (dispatcher.ts) starts it. */
export interface AttemptToSend {
  delivery: DeliveryRow;
  event: EventRow;
  /** Webhook chaos decided as the attempt started, or null. */
  chaos: ChaosDecision | null;
  trigger: Trigger;
  /** Its number: the delivery's attempts so far, plus one. */
  attempt: number;
  /** Aborts a request in flight when the state is discarded (a reset, a restore). */
  signal: AbortSignal;
  /** Whether the state this attempt belongs to was discarded: then nothing more is sent. */
  discarded: () => boolean;
}

/**
 * Sends one attempt, to the partner's webhook (signed with its secret, as chaos says) or to a
 * connected listener, and tells `delivery.sent`; the URL it went to and its result, or null when the
 * state was discarded while the webhook configuration was read. Moved out of dispatcher.ts unchanged.
 */
export async function sendAttempt(
  deps: Pick<DispatcherDeps, 'db' | 'config' | 'attempter' | 'version' | 'emit' | 'sendToListener' | 'guardFor'>,
  { delivery, event, chaos, trigger, attempt, signal, discarded }: AttemptToSend,
): Promise<{ url: string; result: AttemptResult } | null> {
  const { db, config, attempter, version } = deps;
  let url = delivery.url;
  let result: AttemptResult;
  const sent = (to: string) =>
    deps.emit({
      type: 'delivery.sent',
      partnerId: delivery.partner_id,
      environment: delivery.environment,
      invoiceId: delivery.invoice_id,
      deliveryId: delivery.id,
      eventId: event.id,
      eventType: event.type,
      url: to,
      target: delivery.target,
      attempt,
      trigger,
    });
  if (delivery.target === 'listener') {
    const send = deps.sendToListener;
    sent(url);
    result = send ? await send(delivery, event.payload, config.webhooks.timeoutMs) : failure('listener_unavailable: no listener is connected');
    // The listener signs what it forwards itself: only a duplicate can be played on it.
    if (chaos?.duplicate && send && !discarded()) await send(delivery, event.payload, config.webhooks.timeoutMs);
  } else {
    const webhook = await db.webhookConfigs.findWebhookConfig(delivery.partner_id, delivery.environment);
    // The read awaited the store: a reset or restore may have come meanwhile.
    if (discarded()) return null;
    if (webhook?.enabled !== 1) {
      result = failure('webhook_disabled: the webhook configuration is disabled or was removed');
    } else {
      url = webhook.url;
      const secret = chaos?.badSignature ? `${webhook.secret}-chaos` : webhook.secret;
      const at = wallClockSeconds() - (chaos?.staleTimestamp ? STALE_SECONDS : 0);
      const headers = deliveryHeaders(event.payload, secret, parseCustomHeaders(webhook.custom_headers), version, at);
      sent(url);
      const request = {
        url,
        body: event.payload,
        headers,
        timeoutMs: config.webhooks.timeoutMs,
        guard: deps.guardFor?.(delivery.environment) ?? (delivery.environment === 'live' ? 'public-only' : 'none'),
        signal,
      };
      result = await attempter.attempt(request);
      // A duplicate is the same envelope again, right after: what a receiver must process once.
      if (chaos?.duplicate && !discarded()) await attempter.attempt(request);
    }
  }
  return { url, result };
}

/** Waits `ms` of real time, or less when `signal` aborts. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms).unref();
    signal.addEventListener('abort', done, { once: true });
  });
}

function failure(error: string): AttemptResult {
  return { ok: false, responseStatus: null, responseBody: null, error, errorKind: null, durationMs: 0 };
}
