import { advanceBy, type Clock } from '../clock/clock.js';
import { errorMessage } from '../domain/caught.js';
import type { Dispatcher } from '../webhooks/dispatcher.js';
import type { StoreDb } from '../store/db.js';
import { Backoff } from '../store/backoff.js';

/** The longest a timer sleeps before it looks again (the clock may have been advanced meanwhile). */
const MAX_SLEEP_MS = 30_000;
/** Safety bound on the steps of one advance (each step is one instant at which something falls due). */
const MAX_STEPS = 100_000;

export interface SchedulerDeps {
  db: StoreDb;
  clock: Clock;
  dispatcher: Dispatcher;
  /**
   * Expires every invoice due at `now`; resolves how many. `wait`: wait for another program's write
   * lock (an advance, answering a request) or refuse at once (the timer, which tries again).
   */
  expireDue(now: number, wait: boolean): Promise<number>;
  /** Other work on the clock (a vanished listener's reconnect window ending): when it falls due, and running it. */
  other?: { nextDueAt(): Promise<number | null>; run(now: number): Promise<void> };
  /** Housekeeping (forgetting expired idempotency keys), run at most hourly on the emulator clock. */
  housekeeping?(now: number, wait: boolean): Promise<void>;
  /** A tick failed (the database went away, a bug): reported, and the scheduler keeps going. */
  onError?(error: unknown): void;
}

const HOUSEKEEPING_EVERY_MS = 3_600_000;

/**
 * Runs what falls due on the emulator clock with no request needed: invoice expiries and delivery
 * attempts. While the emulator runs, one timer sleeps until the next due instant; on start it catches
 * up on whatever fell due while it was stopped; `advance` walks the clock through every due instant
 * in order, so retries happen at their scheduled times even when a day is skipped in one call.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;
  private stopped = false;
  private expiredTotal = 0;
  private lastHousekeeping = -Infinity;
  private readonly backoff = new Backoff();
  /** A tick is running (it awaits the store): a timer firing meanwhile runs one more after it. */
  private ticking = false;
  private tickAgain = false;

  constructor(private readonly deps: SchedulerDeps) {}

  start(): void {
    this.runSoon();
  }

  /** Something falls due at `at`: wake by then. */
  schedule(at: number): void {
    if (this.stopped) return;
    if (at <= this.deps.clock.now()) {
      // Due now: only deliveries are (expiries are scheduled ahead), and the dispatcher takes them.
      this.deps.dispatcher.kick();
      return;
    }
    if (at < this.armedAt) this.arm(at);
  }

  /**
   * Moves the clock forward by `ms`, stopping at each instant something falls due on the way and
   * running it (attempts included, awaited) before moving on. Resolves when the clock reached the
   * target and everything due by then has run.
   */
  async advance(ms: number): Promise<{ expired: number; attempts: number }> {
    const { clock } = this.deps;
    // One clock read: each step moves the clock by how far it is from the last step, not to an
    // instant computed from an earlier read, so the wall time the due work takes is not subtracted
    // from the advance (a systemClock keeps flowing meanwhile). The clock moves by exactly `ms`.
    const start = clock.now();
    const target = start + ms;
    let at = start;
    const before = this.expiredTotal;
    // Every attempt this advance made due, started by its own claims or by the wake-ups its writes
    // sent (which its steps wait for: runDueNow).
    const startedBefore = this.deps.dispatcher.started;
    await this.settle();
    for (let step = 0; step < MAX_STEPS; step++) {
      const next = await this.nextDueAt();
      if (next === null || next > target) break;
      if (next > at) {
        advanceBy(clock, next - at);
        at = next;
      }
      await this.runDueNow();
    }
    advanceBy(clock, target - at);
    await this.runDueNow();
    this.arm((await this.nextDueAt()) ?? Infinity);
    return { expired: this.expiredTotal - before, attempts: this.deps.dispatcher.started - startedBefore };
  }

  /** The data changed under it (a snapshot restore): look again at what falls due, and when. */
  rearm(): void {
    this.runSoon();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async nextDueAt(): Promise<number | null> {
    const times = [this.deps.db.invoices.nextExpiryAt(), this.deps.dispatcher.nextDueAt(), this.deps.other?.nextDueAt() ?? null];
    const due = (await Promise.all(times)).filter((t) => t !== null);
    return due.length ? Math.min(...due) : null;
  }

  /** Everything due at the current instant, including the attempts it starts, finished. */
  private async runDueNow(): Promise<void> {
    await this.settle();
    await this.housekeep(true);
    await this.deps.other?.run(this.deps.clock.now());
    this.expiredTotal += await this.deps.expireDue(this.deps.clock.now(), true);
    // Attempts that fail may come due again at once (a zero wait); loop until nothing is due now.
    // Idle after every claim, one that started nothing too: a delivery the expiries above wrote may
    // have been claimed meanwhile by the wake-up its write sent (`schedule` → `kick`), and its
    // attempt runs, and records its result, at this instant, before the clock moves on (CONTRACT
    // §12: work made due by an advance records the advanced time, not when it ran).
    const { dispatcher, clock } = this.deps;
    for (;;) {
      const n = await dispatcher.pump(clock.now(), true);
      await dispatcher.idle();
      if (n === 0) return;
    }
  }

  private async housekeep(wait: boolean): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.lastHousekeeping < HOUSEKEEPING_EVERY_MS) return;
    this.lastHousekeeping = now;
    await this.deps.housekeeping?.(now, wait);
  }

  private async settle(): Promise<void> {
    await this.deps.dispatcher.idle();
  }

  private runSoon(): void {
    this.arm(this.deps.clock.now());
  }

  private arm(at: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.armedAt = at;
    if (at === Infinity) return;
    const delay = Math.max(0, Math.min(at - this.deps.clock.now(), MAX_SLEEP_MS));
    this.timer = setTimeout(() => void this.tick(), delay);
    // A sleeping emulator must not keep a test process alive.
    this.timer.unref();
  }

  /**
   * Expiries and claims (database work, without waiting for locks); the attempts it starts run on
   * their own. Never rejects: it runs from a timer.
   */
  private async tick(): Promise<void> {
    this.armedAt = Infinity;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    const { clock, dispatcher, db } = this.deps;
    // One instant for the whole tick: the claim takes what is due at `now`, the timer sleeps until
    // the first thing due after `now`. Reading the clock twice left a gap (a timer firing a little
    // early, a retry falling due between the two reads: not claimed, and not "after" either).
    const now = clock.now();
    let next: number | null = now + MAX_SLEEP_MS;
    try {
      // Without waiting for locks: a lock held elsewhere must not stall every request for 5 s.
      await this.housekeep(false);
      this.expiredTotal += await this.deps.expireDue(now, false);
      await dispatcher.pump(now, false);
      // Sleep until the next instant in the future. What is due now but could not start (its
      // receiver's slots are busy) starts from the dispatcher's own kick as slots free up, so the
      // timer must not spin on it.
      const [expiry, delivery] = await Promise.all([db.invoices.nextExpiryAt(), dispatcher.nextDueAfter(now)]);
      next = expiry === null ? delivery : delivery === null ? expiry : Math.min(expiry, delivery);
      this.backoff.reset();
    } catch (error) {
      // Stopped while the tick awaited the store (the database closes right after): nothing to report.
      if (this.stopped) return;
      // A timer callback must not throw (it would take the process down): reported, and tried
      // again after a backoff delay (the emulator clock may not move while the database refuses).
      const delay = this.backoff.next();
      this.deps.onError?.(new Error(`${errorMessage(error)}; trying again in ${delay} ms`, { cause: error }));
      next = now + delay;
    } finally {
      this.ticking = false;
      // A timer armed while this tick ran keeps its own (earlier) time; this one's is the later bound.
      const at = next === null ? Infinity : Math.max(next, now + 1);
      if (this.tickAgain) {
        this.tickAgain = false;
        this.runSoon();
      } else if (at < this.armedAt) this.arm(at);
    }
  }
}
