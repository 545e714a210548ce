/**
 * One reconnect policy for the CLI's long-lived connections: `svc webhook listen`'s listener stream
 * and `svc webhook deliveries tail`'s attempt stream (and its polling). Both used to have their own
 * loop and their own patience (60 s and 5 minutes); people restarting `svc dev` met both.
 *
 * The policy: wait 250 ms after the first failure, doubling up to 5 s between tries, and give up
 * (exit 3, so a supervisor can restart the command) when there has been no connection for
 * 5 minutes: long enough for a slow restart of the emulator, a laptop waking up or a network
 * change; short enough that a command left running against an emulator that is gone says so.
 * `SVC_RECONNECT_TIMEOUT=<seconds>` changes the limit; 0 never gives up.
 */
import { UsageError } from '../errors.js';

export interface ReconnectPolicy {
  /** The first wait after a failure. */
  initialMs: number;
  /** The longest wait between two tries. */
  maxMs: number;
  /** Give up after this long without a connection; null: never. */
  giveUpAfterMs: number | null;
}

export const DEFAULT_RECONNECT: ReconnectPolicy = { initialMs: 250, maxMs: 5_000, giveUpAfterMs: 5 * 60_000 };

/**
 * The policy with the limit from `SVC_RECONNECT_TIMEOUT` (seconds; 0 = never give up).
 * `SVC_LISTEN_RECONNECT_TIMEOUT`, listen's older name for it, is still read when the new one is unset.
 */
export function reconnectPolicy(env: NodeJS.ProcessEnv, base: ReconnectPolicy = DEFAULT_RECONNECT): ReconnectPolicy {
  const [name, value] = [
    ['SVC_RECONNECT_TIMEOUT', env.SVC_RECONNECT_TIMEOUT] as const,
    ['SVC_LISTEN_RECONNECT_TIMEOUT', env.SVC_LISTEN_RECONNECT_TIMEOUT] as const,
  ].find(([, v]) => v !== undefined && v !== '') ?? ['', undefined];
  if (value === undefined) return base;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw new UsageError(`${name} must be a number of seconds (0: never give up), not ${JSON.stringify(value)}`);
  return { ...base, giveUpAfterMs: seconds === 0 ? null : seconds * 1000 };
}

/** What to do after a failure: try again after `delayMs` (the `attempt`-th try of this outage), or give up. */
export type NextTry = { giveUp: false; delayMs: number; attempt: number; downMs: number } | { giveUp: true; downMs: number };

/**
 * Follows one connection's outages. `failed()` after every failed or lost connection says how long to
 * wait, or that the limit has passed; `connected()` ends the outage (the next failure starts afresh).
 * The last wait is cut short so that giving up happens on time, not up to a backoff step late.
 */
export class Reconnector {
  private down: { since: number; attempts: number } | null = null;

  constructor(
    readonly policy: ReconnectPolicy = DEFAULT_RECONNECT,
    private readonly now: () => number = Date.now,
  ) {}

  /** True while an outage is under way (between a failure and the next connection). */
  get isDown(): boolean {
    return this.down !== null;
  }

  failed(): NextTry {
    const now = this.now();
    this.down ??= { since: now, attempts: 0 };
    const downMs = now - this.down.since;
    const { initialMs, maxMs, giveUpAfterMs } = this.policy;
    const remaining = giveUpAfterMs === null ? Number.POSITIVE_INFINITY : giveUpAfterMs - downMs;
    if (remaining <= 0) return { giveUp: true, downMs };
    const delayMs = Math.min(initialMs * 2 ** Math.min(this.down.attempts, 30), maxMs, remaining);
    this.down.attempts += 1;
    return { giveUp: false, delayMs, attempt: this.down.attempts, downMs };
  }

  /** Connected (again). Returns the outage that ended, if there was one. */
  connected(): { downMs: number; attempts: number } | null {
    const ended = this.down ? { downMs: this.now() - this.down.since, attempts: this.down.attempts } : null;
    this.down = null;
    return ended;
  }
}

/** The give-up limit as people read it: `5 minutes`, `90 s`. */
export function limitText(policy: ReconnectPolicy): string {
  const ms = policy.giveUpAfterMs;
  if (ms === null) return 'ever';
  return ms >= 120_000 && ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${Math.round(ms / 1000)} s`;
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
