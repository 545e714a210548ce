import { ApiRefusedError, ServiceUnreachableError } from '../../../../client/errors.js';
import { limitText, Reconnector, sleep, type ReconnectPolicy } from '../../../../client/reconnect.js';
import { openSse, type SseStream } from '../../../../client/sse.js';
import { UserError } from '../../../../errors.js';
import type { AttemptLine } from '../../../views/delivery.js';
import { attemptLineOf } from './attempt-message.js';
import { errorMessage } from '../../../../domain/caught.js';

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
  /** The control token's header for a remote control plane (`client.controlHeaders()`). */
  headers: Record<string, string>;
  signal: AbortSignal;
  sink: TailSink;
  /** Called once the stream is open again after a drop, to report what happened meanwhile. */
  catchUp(): Promise<void>;
  /** Called once the stream is open the first time (the poller's baseline, for later catch-ups). */
  connected(): void;
  /** Backoff and give-up limit (src/client/reconnect.ts). */
  reconnect: ReconnectPolicy;
}

/**
 * Follows the emulator's attempt stream (`GET /__emulator/deliveries/stream`, SSE) until `signal`
 * aborts. When the stream drops (the emulator restarted, the connection broke, 45 s without even a
 * heartbeat) it says so once, reconnects under the CLI's reconnect policy, and catches up on the
 * attempts it missed; past the policy's limit it gives up (exit 3). Refusals (a bad key, a filter
 * the emulator rejects) end it with that error.
 */
export async function followStream(opts: StreamOptions): Promise<void> {
  const { signal, sink } = opts;
  const reconnector = new Reconnector(opts.reconnect);
  const origin = new URL(opts.url).origin;
  let everConnected = false;
  while (!signal.aborted) {
    let stream: SseStream | null = null;
    const close = () => stream?.close();
    signal.addEventListener('abort', close, { once: true });
    let reason = 'the emulator closed the stream';
    try {
      let markReady!: () => void;
      let isReady = false;
      const ready = new Promise<void>((resolve) => (markReady = resolve));
      stream = await openSse(
        opts.url,
        opts.key,
        (message) => {
          if (message.event === 'ready') {
            isReady = true;
            markReady();
          } else if (message.event === 'attempt') {
            const line = attemptLineOf(parseJson(message.data));
            // A message of another shape is said, not thrown: one bad line must not end a long tail.
            if (line) sink.attempt(line);
            else sink.notice(`ignored a malformed attempt message from the emulator: ${message.data.slice(0, 200)}`);
          }
        },
        { headers: opts.headers },
      );
      if (signal.aborted) break;
      await Promise.race([ready, stream.done]);
      if (!isReady) throw new Error('the stream ended before it was ready');
      const outage = reconnector.connected();
      if (!everConnected) {
        everConnected = true;
        sink.ready();
        opts.connected();
      } else if (outage) {
        sink.notice(`reconnected to ${origin}`);
        await opts.catchUp();
      }
      await stream.done;
    } catch (error) {
      if (signal.aborted) break;
      if (isFatal(error)) throw error;
      // Not connected even once: nothing to resume, so this is the command's error.
      if (!everConnected) throw error;
      reason = error instanceof ServiceUnreachableError ? error.reason : errorMessage(error);
    } finally {
      signal.removeEventListener('abort', close);
      stream?.close();
    }
    if (signal.aborted) break;
    const next = reconnector.failed();
    if (next.giveUp) throw new ServiceUnreachableError(origin, `no stream for ${limitText(opts.reconnect)} (${reason}); giving up`);
    if (next.attempt === 1) sink.notice(`lost the stream from ${origin} (${reason}); reconnecting…`);
    await sleep(next.delayMs, signal);
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

/** A stream message's `data:` JSON, or undefined when it is not JSON (then it is no message of ours). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
