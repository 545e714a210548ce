import { ApiRefusedError, ServiceUnreachableError } from '../../../../client/errors.js';
import { openSse, type SseStream } from '../../../../client/sse.js';
import { UserError } from '../../../../errors.js';
import type { DeliveryEvent } from '../../../../webhooks/delivery-events.js';
import type { AttemptLine } from '../../../views/delivery.js';

/** Backoff between reconnection attempts: from 250 ms, doubling, at most 5 s. */
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5_000;
/** How long tail keeps trying to get back to a service before it gives up (exit 3). */
export const GIVE_UP_MS = 5 * 60_000;

/** What tail does with what it finds; both loops (stream and polling) report through these. */
export interface TailSink {
  attempt(line: AttemptLine): void;
  /** Connected for the first time: the moment to say what is tailed. */
  ready(): void;
  /** A short notice for stderr (connection lost, back again). */
  notice(text: string): void;
}

export interface StreamOptions {
  url: string;
  key: string;
  signal: AbortSignal;
  sink: TailSink;
  /** Called once the stream is open again after a drop, to report what happened meanwhile. */
  catchUp(): Promise<void>;
  /** Called once the stream is open the first time (the poller's baseline, for later catch-ups). */
  connected(): void;
}

/**
 * Follows the emulator's attempt stream (`GET /__emulator/deliveries/stream`, SSE) until `signal`
 * aborts. When the stream drops (the emulator restarted, the connection broke, 45 s without even a
 * heartbeat) it says so once, reconnects with backoff, and catches up on the attempts it missed.
 * Refusals (a bad key, a filter the emulator rejects) end it with that error.
 */
export async function followStream(opts: StreamOptions): Promise<void> {
  const { signal, sink } = opts;
  let lostAt: number | null = null;
  let everConnected = false;
  let delay = FIRST_DELAY_MS;
  while (!signal.aborted) {
    let stream: SseStream | null = null;
    const close = () => stream?.close();
    signal.addEventListener('abort', close, { once: true });
    let reason = 'the emulator closed the stream';
    try {
      let markReady!: () => void;
      let isReady = false;
      const ready = new Promise<void>((resolve) => (markReady = resolve));
      stream = await openSse(opts.url, opts.key, (message) => {
        if (message.event === 'ready') {
          isReady = true;
          markReady();
        } else if (message.event === 'attempt') sink.attempt(fromStreamEvent(JSON.parse(message.data) as StreamAttempt));
      });
      if (signal.aborted) break;
      await Promise.race([ready, stream.done]);
      if (!isReady) throw new Error('the stream ended before it was ready');
      if (!everConnected) {
        everConnected = true;
        sink.ready();
        opts.connected();
      } else if (lostAt !== null) {
        sink.notice(`reconnected to ${new URL(opts.url).origin}`);
        await opts.catchUp();
      }
      lostAt = null;
      delay = FIRST_DELAY_MS;
      await stream.done;
    } catch (error) {
      if (signal.aborted) break;
      if (isFatal(error)) throw error;
      // Not connected even once: nothing to resume, so this is the command's error.
      if (!everConnected) throw error;
      reason = error instanceof ServiceUnreachableError ? error.reason : (error as Error).message;
    } finally {
      signal.removeEventListener('abort', close);
      stream?.close();
    }
    if (signal.aborted) break;
    if (lostAt === null) {
      lostAt = Date.now();
      sink.notice(`lost the stream from ${new URL(opts.url).origin} (${reason}); reconnecting…`);
    } else if (Date.now() - lostAt > GIVE_UP_MS) {
      throw new ServiceUnreachableError(new URL(opts.url).origin, `no stream for ${GIVE_UP_MS / 60_000} minutes (${reason}); giving up`);
    }
    await sleep(delay, signal);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}

/**
 * A refusal that waiting will not fix: a 4xx other than 408/429 (a bad or unknown key after the
 * emulator was recreated, a rejected filter, a service that is no longer the emulator), or a user error.
 */
export function isFatal(error: unknown): boolean {
  if (error instanceof ApiRefusedError) return error.status < 500 && error.status !== 408 && error.status !== 429;
  return error instanceof UserError;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

type StreamAttempt = Extract<DeliveryEvent, { type: 'delivery.result' }>;

/** The stream's `delivery.result` event in tail's stable shape (partner id and event type left out). */
export function fromStreamEvent(e: StreamAttempt): AttemptLine {
  return {
    deliveryId: e.deliveryId,
    eventId: e.eventId,
    eventType: e.eventType,
    invoiceId: e.invoiceId,
    environment: e.environment,
    url: e.url,
    target: e.target,
    attempt: e.attempt,
    trigger: e.trigger,
    startedAt: e.startedAt,
    durationMs: e.durationMs,
    responseStatus: e.responseStatus,
    ok: e.ok,
    error: e.error,
    status: e.status,
    nextAttemptAt: e.nextAttemptAt,
  };
}
