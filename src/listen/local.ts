/**
 * Local mode: `svc webhook listen` against the emulator. It registers as an extra delivery target
 * (the partner's webhook configuration is not touched), holds the listener stream open, forwards
 * each delivery to the app and reports each result back, so the emulator records it like any
 * attempt and retries failures on its schedule.
 *
 * Reconnecting: a dropped stream (the emulator restarted, was killed, the connection died silently;
 * the stream's heartbeat catches that) is retried under the CLI's one reconnect policy
 * (src/client/reconnect.ts: backoff from 250 ms to 5 s, giving up after 5 minutes without a
 * connection by default), then listen gives up with a clear error and exit 3, so a supervisor can
 * restart it. Nothing is lost meanwhile: listener deliveries are
 * ordinary deliveries in the emulator's outbox, and connecting makes the missed ones due at once.
 *
 * Exit: a clean stop (Ctrl-C, SIGTERM) unregisters the listener (`DELETE /__emulator/listener`):
 * otherwise every later event adds a delivery that nobody takes, retrying for hours as
 * `listener_unavailable`. A listen that vanishes without stopping (killed, laptop closed) is kept by
 * the emulator for its reconnect window (5 minutes, RECONNECT_WINDOW_MS), then removed.
 */
import { ApiRefusedError, ServiceUnreachableError } from '../client/errors.js';
import { DEFAULT_RECONNECT, Reconnector, sleep, type ReconnectPolicy } from '../client/reconnect.js';
import { openSse, type SseMessage } from '../client/sse.js';
import { INVOICE_EVENT_TYPES, type InvoiceEventType } from '../contract/enums.js';
import { UserError } from '../errors.js';
import type { Emit } from './events.js';
import { createForwarder } from './forward.js';
import type { ListenOptions } from './options.js';
import { sameTargetWarning } from './same-target.js';
import { errorCause, errorCode, errorMessage } from '../domain/caught.js';

export interface LocalListenOptions extends ListenOptions {
  /** Backoff and give-up limit (default: the CLI's policy; SVC_RECONNECT_TIMEOUT changes the limit). */
  reconnect?: ReconnectPolicy;
  /** No byte for this long (heartbeats come every 15 s) means the connection is dead (default 45 s). */
  idleTimeoutMs?: number;
}

export interface RunContext {
  /** Aborted by Ctrl-C / SIGTERM: stop, clean up, return. */
  signal: AbortSignal;
  emit: Emit;
}

/** What the emulator pushes down the stream for each attempt (listener-hub.ts). */
interface DeliveryMessage {
  requestId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  headers: Record<string, string>;
  body: string;
}

/** listen could not get its connection back in time: exit 3, like any unreachable service. */
export class ReconnectGaveUpError extends UserError {
  constructor(
    readonly baseUrl: string,
    readonly seconds: number,
    readonly lastReason: string,
  ) {
    super(
      `lost the connection to the emulator at ${baseUrl} and could not reconnect within ${seconds} s (last error: ${lastReason})`,
      'listen_disconnected',
      'Start the emulator again (`svc dev`), then restart `svc webhook listen`: deliveries missed meanwhile are forwarded when it reconnects.',
    );
  }
}

/** Runs until `signal` aborts (returns) or the connection cannot be restored (throws). */
export async function runLocal(o: LocalListenOptions, { signal, emit }: RunContext): Promise<void> {
  const reconnector = new Reconnector(o.reconnect ?? DEFAULT_RECONNECT);
  const key = o.client.key('partner')!;
  const streamUrl = o.client.url('streamListener', { query: { timeoutSeconds: o.timeoutSeconds } });
  const forwarder = createForwarder();
  const inflight = new Set<Promise<void>>();

  const register = async (): Promise<string> => {
    const res = await o.client.registerListener({
      body: { forwardTo: o.forwardTo, events: o.events?.filter(isEventType) ?? null, timeoutSeconds: o.timeoutSeconds },
    });
    return res.data.secret;
  };

  const handle = async (msg: DeliveryMessage): Promise<void> => {
    let report: { status: number | null; body: string | null; error: string | null; durationMs: number };
    if (o.events && !o.events.includes(msg.eventType)) {
      // The emulator filters on registration; this only meets deliveries created under an older filter.
      emit({ type: 'filtered', eventType: msg.eventType, eventId: msg.eventId });
      report = { status: 200, body: 'not forwarded: filtered out by svc webhook listen --events', error: null, durationMs: 0 };
    } else {
      emit({ type: 'event', eventType: msg.eventType, eventId: msg.eventId, deliveryId: msg.deliveryId, attempt: msg.attempt });
      const r = await forwarder.forward({
        url: o.forwardTo,
        method: 'POST',
        body: msg.body,
        headers: { ...msg.headers, ...o.headers },
        timeoutMs: o.timeoutSeconds * 1000,
      });
      const common = { eventType: msg.eventType, eventId: msg.eventId, method: 'POST', url: o.forwardTo, durationMs: r.durationMs };
      if (r.ok) emit({ type: 'forwarded', ...common, status: r.status! });
      else emit({ type: 'forward_failed', ...common, status: r.status, reason: r.error!, errorKind: r.errorKind! });
      report = { status: r.status, body: r.body, error: r.error, durationMs: r.durationMs };
    }
    try {
      await o.client.reportListenerResult({ body: { requestId: msg.requestId, ...report } });
    } catch (error) {
      emit({
        type: 'warning',
        message: `the result for ${msg.eventId} could not be reported to the emulator (${describe(error)}); it will attempt the delivery again`,
      });
    }
  };

  const [registered, sameTarget] = await Promise.all([register(), sameTargetWarning(o.client, o.forwardTo)]);
  let secret = registered;
  if (sameTarget) emit({ type: 'warning', message: sameTarget });
  let everReady = false;

  const onMessage = (message: SseMessage) => {
    if (message.event === 'ready') {
      const outage = reconnector.connected();
      if (!everReady) {
        everReady = true;
        emit({ type: 'ready', mode: 'local', forwardTo: o.forwardTo, secret, secretSource: 'listener', events: o.events });
      } else if (outage) {
        emit({ type: 'reconnected', attempts: outage.attempts, downMs: outage.downMs });
      }
      return;
    }
    if (message.event !== 'delivery') return;
    let msg: DeliveryMessage;
    try {
      const parsed = deliveryMessageOf(JSON.parse(message.data));
      if (!parsed) throw new Error('not a delivery message');
      msg = parsed;
    } catch {
      emit({ type: 'warning', message: `ignored a malformed delivery message from the emulator: ${message.data.slice(0, 200)}` });
      return;
    }
    const run: Promise<void> = handle(msg)
      .catch((error) => emit({ type: 'warning', message: `forwarding ${msg.eventId} failed unexpectedly: ${describe(error)}` }))
      .finally(() => inflight.delete(run));
    inflight.add(run);
  };

  try {
    while (!signal.aborted) {
      let reason: string;
      try {
        if (reconnector.isDown) {
          // The emulator may have come back with another database: register again every time.
          const now = await register();
          if (now !== secret) {
            emit({ type: 'warning', message: `the listener secret changed (the emulator's data was reset?); it is now ${now}` });
            secret = now;
          }
        }
        const stream = await openSse(streamUrl, key, onMessage, {
          headers: o.client.controlHeaders(),
          ...(o.idleTimeoutMs ? { idleTimeoutMs: o.idleTimeoutMs } : {}),
        });
        const close = () => stream.close();
        signal.addEventListener('abort', close, { once: true });
        try {
          await stream.done;
          reason = 'the emulator closed the connection';
        } finally {
          signal.removeEventListener('abort', close);
        }
      } catch (error) {
        if (signal.aborted) break;
        // Failing to start, or a refusal (a revoked key, say), is not something waiting would fix.
        if ((!everReady && !reconnector.isDown) || (error instanceof ApiRefusedError && error.status < 500)) throw error;
        reason = describe(error);
      }
      if (signal.aborted) break;
      const next = reconnector.failed();
      if (next.giveUp) throw new ReconnectGaveUpError(o.baseUrl, Math.round((reconnector.policy.giveUpAfterMs ?? next.downMs) / 1000), reason);
      emit({ type: 'reconnecting', attempt: next.attempt, delayMs: next.delayMs, reason });
      await sleep(next.delayMs, signal);
    }
  } finally {
    // Let forwards in flight finish and report (briefly): otherwise the emulator retries them later.
    await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, 2000).unref())]);
    await forwarder.close();
    if (signal.aborted) await unregister(o, emit);
  }
}

/** A clean stop says goodbye; an emulator already gone cannot be told, and forgets it after the window. */
async function unregister(o: LocalListenOptions, emit: Emit): Promise<void> {
  try {
    await o.client.unregisterListener();
    emit({ type: 'unregistered', baseUrl: o.baseUrl });
  } catch (error) {
    emit({
      type: 'warning',
      message: `the listener could not be unregistered (${describe(error)}); the emulator removes it after its 5-minute reconnect window`,
    });
  }
}

/** A short reason for a lost connection or a failed call. */
export function describe(error: unknown): string {
  if (error instanceof ApiRefusedError) return `${error.status} ${error.error.code}: ${error.error.message}`;
  if (error instanceof ServiceUnreachableError) return error.reason;
  const code = errorCode(errorCause(error)) ?? errorCode(error);
  const message = errorMessage(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/** --events were checked when parsed (target.ts); this tells the compiler so, dropping nothing. */
function isEventType(type: string): type is InvoiceEventType {
  return INVOICE_EVENT_TYPES.some((known) => known === type);
}

/** A delivery message off the stream, checked: the CLI may talk to another version of the emulator. */
function deliveryMessageOf(value: unknown): DeliveryMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const field = (key: string): unknown => Reflect.get(value, key);
  const [requestId, deliveryId, eventId, eventType, attempt, headers, body] = [
    'requestId',
    'deliveryId',
    'eventId',
    'eventType',
    'attempt',
    'headers',
    'body',
  ].map(field);
  if (typeof requestId !== 'string' || typeof deliveryId !== 'string' || typeof eventId !== 'string' || typeof eventType !== 'string') return null;
  if (typeof attempt !== 'number' || typeof body !== 'string' || typeof headers !== 'object' || headers === null) return null;
  const headerRecord: Record<string, string> = {};
  for (const [name, v] of Object.entries(headers)) {
    if (typeof v !== 'string') return null;
    headerRecord[name] = v;
  }
  return { requestId, deliveryId, eventId, eventType, attempt, headers: headerRecord, body };
}
