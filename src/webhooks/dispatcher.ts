import { RetryLater } from '../store/backoff.js';
import type { DeliveryRow } from '../store/repos/deliveries.js';
import { type ClaimLeases, noLeases } from '../store/leases.js';
import { recordHeldBatch, type Trigger } from './completion.js';
import type { DispatcherDeps, HeldCompletion, Release } from './dispatcher-deps.js';
import { EventLoader } from './event-loader.js';
import { abortableDelay, sendAttempt } from './send-attempt.js';
import { receiverOf } from '../domain/receiver.js';

/** Attempts running at once, in all; and per receiver (`receiverOf`), so a dead one cannot take every slot. */
const MAX_IN_FLIGHT = 1024;
const MAX_IN_FLIGHT_PER_RECEIVER = 64;
/** Claim again after this many attempts finished, or after this long, whichever comes first. */
const CLAIM_BATCH = 16;
const CLAIM_DELAY_MS = 2;

/**
 * Reads the outbox and delivers (CONTRACT §5). Due deliveries are claimed in one statement and
 * attempted concurrently; results are written in batches, one transaction per batch. A crash loses
 * nothing: a claimed delivery is still due after a restart (`releaseInFlight`), so delivery is at
 * least once, and receivers deduplicate on the envelope id.
 *
 * Where replicas share the queue (CONTRACT §12) each claim carries a lease (the store kit's, renewed
 * and swept there), and a result is written only while its claim still holds the delivery
 * (`endLeases`): a replica that lost a claim cannot overwrite the new holder's state. One owner per
 * database (SQLite, CONTRACT §8) claims without leases.
 */
export class Dispatcher {
  private readonly running = new Map<string, Promise<void>>();
  /** Attempts running per receiver (`receiverOf`). */
  private readonly perReceiver = new Map<string, number>();
  private completions: HeldCompletion[] = [];
  private flushScheduled = false;
  /** Flushes whose transaction has not settled yet: their results are taken out of `completions`. */
  private flushing = 0;
  private pumpScheduled = false;
  /**
   * Claims run one at a time: each computes its room from the attempts running when it starts, so
   * two claims awaiting the store at once could not both fill the same free slots.
   */
  private claims: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** After close: late results are not written (the database may be closed). */
  private abandoned = false;
  private idleWaiters: (() => void)[] = [];
  /** Scheduled attempts started, in all: an advance reports how many it made (server/scheduler.ts). */
  started = 0;
  /** Receivers that freed a slot since the last claim for them, each with a URL of it (for the claim's index). */
  private readonly freed = new Map<string, string>();
  private freedCount = 0;
  private claimTimer: NodeJS.Timeout | undefined;
  /** The last general claim filled every free slot: other receivers may still have due work. */
  private globallyShort = false;
  /** Claimed deliveries whose attempt could not start: handed back (in_flight = 0) by the next flush. */
  private toRelease: Release[] = [];
  /** Claims' leases, as the store's engine keeps them (store/leases.ts). */
  private readonly leases: ClaimLeases;
  /**
   * The generation of the state being delivered: a reset or restore (discard) moves it on, and an
   * attempt of an earlier generation is never sent, nor its result recorded (CONTRACT §8).
   */
  private epoch = 0;
  /** Aborts the current generation's chaos holds and requests on discard. */
  private abandon = new AbortController();
  /**
   * Claims and writes run in timers and microtasks, where a throw would end the process: a database
   * error is reported and everything pending is tried again after a backoff delay.
   */
  private readonly retry = new RetryLater(
    'dispatcher',
    () => {
      void this.flush();
      if (this.freedCount > 0) this.claimFreed();
      this.kick();
    },
    // Work that was awaiting the store when the dispatcher closed fails on the closed database:
    // nothing to report, and nothing will be retried.
    (error) => {
      if (!this.abandoned) this.deps.onError?.(error);
    },
  );
  /** Background database work; false when it failed (reported, retried) or a retry is pending. Never rejects. */
  private readonly inBackground = (work: () => Promise<void>): Promise<boolean> => this.retry.attemptAsync(work);

  /** Runs `fn` after every claim before it has settled (see `claims`). */
  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.claims.then(fn);
    this.claims = run.catch(() => undefined);
    return run;
  }

  /** The events of the attempts a claim starts, read together (./event-loader.ts). */
  private readonly events: EventLoader;

  constructor(private readonly deps: DispatcherDeps) {
    this.events = new EventLoader((ids) => deps.db.events.findEvents(ids));
    this.leases = deps.leases?.({ onReleased: () => this.kick(), onError: (error) => deps.onError?.(error) }) ?? noLeases;
  }

  /** Claims and starts what is due now; cheap to call often (coalesced into one pass per tick). */
  kick(): void {
    if (this.pumpScheduled || this.closed) return;
    this.pumpScheduled = true;
    // A microtask, not setImmediate: the kick comes after the transaction that wrote the event
    // committed, and the claim is queued before the event loop turns to the next batch of
    // requests (event-to-receipt latency, bench #6). Kicks until the claim starts are one claim.
    queueMicrotask(() => {
      void this.serially(() => {
        this.pumpScheduled = false;
        return this.inBackground(async () => {
          await this.claim(this.deps.clock.now(), false);
        });
      });
    });
  }

  /**
   * A freed slot may let that receiver's next due delivery go. Claiming is a query, so slots are
   * gathered (a few, or 2 ms) and each freed receiver claims for itself through its own index:
   * a drain of one receiver never walks another's backlog. New work claims at once (kick).
   */
  private slotFreed(receiver: string, url: string): void {
    this.freed.set(receiver, url);
    this.freedCount += 1;
    if (this.freedCount >= CLAIM_BATCH || this.running.size === 0) {
      this.claimFreed();
    } else if (!this.claimTimer) {
      this.claimTimer = setTimeout(() => {
        this.claimTimer = undefined;
        this.claimFreed();
      }, CLAIM_DELAY_MS);
      this.claimTimer.unref();
    }
  }

  private claimFreed(): void {
    clearTimeout(this.claimTimer);
    this.claimTimer = undefined;
    if (this.closed) return;
    // The receivers freed so far are this claim's; slots freed while it runs wait for the next.
    const freed = [...this.freed];
    this.freed.clear();
    this.freedCount = 0;
    void this.serially(async () => {
      // On a failure the freed slots are recorded again, and the retry claims for them.
      const claimed = await this.inBackground(async () => {
        await this.deps.sync?.();
        const now = this.deps.clock.now();
        for (const [receiver, url] of freed) {
          const room = Math.min(MAX_IN_FLIGHT - this.running.size, MAX_IN_FLIGHT_PER_RECEIVER - (this.perReceiver.get(receiver) ?? 0));
          if (room <= 0 || this.closed) continue;
          const epoch = this.epoch;
          const lease = this.leases.next();
          // The cap is also checked in the database: other replicas' attempts to this receiver count (PostgreSQL).
          const due = await this.deps.db.transaction(
            (tx) => tx.deliveries.claimDueForUrl(url, now, room, lease, MAX_IN_FLIGHT_PER_RECEIVER, this.deps.listenerScope?.()),
            {
              wait: false,
            },
          );
          this.startClaimed(due, epoch, lease?.token ?? null);
        }
        // Receivers that never had a slot (the global cap was full) get theirs from a general claim.
        if (this.globallyShort && this.running.size < MAX_IN_FLIGHT) await this.claim(now, false);
      });
      if (!claimed) {
        for (const [receiver, url] of freed) this.freed.set(receiver, url);
        this.freedCount += freed.length;
      }
    });
  }

  /** When the next delivery is due, for the scheduler's timer. */
  nextDueAt(): Promise<number | null> {
    return this.deps.db.deliveries.nextDeliveryDueAt();
  }

  /** The next due instant strictly after `now`: what is due already starts as slots free up. */
  nextDueAfter(now: number): Promise<number | null> {
    return this.deps.db.deliveries.nextDeliveryDueAfter(now);
  }

  /**
   * Starts every attempt due at `now` there is room for; resolves how many started. `wait`: wait
   * for another program's write lock (a clock advance answering a request), or refuse at once (the
   * scheduler's timer, which tries again). Rejects on a database error.
   */
  pump(now = this.deps.clock.now(), wait = false): Promise<number> {
    return this.serially(() => this.claim(now, wait));
  }

  /** One general claim; only ever run through `serially`. */
  private async claim(now: number, wait: boolean): Promise<number> {
    if (this.closed) return 0;
    const room = MAX_IN_FLIGHT - this.running.size;
    if (room <= 0) return 0;
    await this.deps.sync?.();
    const epoch = this.epoch;
    const lease = this.leases.next();
    const claimed = await this.deps.db.transaction(
      (tx) => tx.deliveries.claimDue(now, room, MAX_IN_FLIGHT_PER_RECEIVER, this.perReceiver, lease, this.deps.listenerScope?.()),
      { wait },
    );
    this.globallyShort = claimed.length === room;
    this.startClaimed(claimed, epoch, lease?.token ?? null);
    return claimed.length;
  }

  /**
   * Starts claimed deliveries, unless the state they were claimed from was discarded while the claim
   * awaited the store (a reset, a restore): those are handed back, never sent (CONTRACT §8).
   */
  private startClaimed(claimed: DeliveryRow[], epoch: number, token: string | null): void {
    if (epoch !== this.epoch || this.closed) {
      if (!claimed.length) return;
      this.toRelease.push(...claimed.map((d) => ({ id: d.id, token })));
      this.scheduleFlush();
      return;
    }
    // In the order they fell due, oldest first: `RETURNING` promises no order (PostgreSQL's follows
    // the rows' places on disk), and the start order is the order of the seeded chaos draws.
    const ordered = [...claimed].sort((a, b) => (a.next_attempt_at ?? 0) - (b.next_attempt_at ?? 0) || Number(a.seq) - Number(b.seq));
    for (const delivery of ordered) this.start(delivery, 'scheduled', token);
  }

  /** Whether nothing runs and every result is written. */
  private get quiet(): boolean {
    return this.running.size === 0 && this.completions.length === 0 && !this.flushScheduled && this.flushing === 0;
  }

  /** Resolves once nothing is running and every result is written: `clock/advance` waits on it. */
  async idle(): Promise<void> {
    while (!this.quiet) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
  }

  /**
   * The state is about to be replaced (reset, snapshot restore): every attempt in flight is abandoned
   * at once (chaos holds and requests aborted, nothing sent afterwards, no result recorded), instead
   * of waiting for an idle moment that never comes while writers keep creating deliveries.
   */
  discard(): void {
    this.epoch += 1;
    this.abandon.abort();
    this.abandon = new AbortController();
    this.completions = [];
    this.toRelease = [];
    this.freed.clear();
    this.freedCount = 0;
  }

  /** A manual attempt (resend): awaited, written, and returned. A success ends the schedule; a failure leaves it. */
  async resend(delivery: DeliveryRow): Promise<DeliveryRow> {
    await this.attemptNow(delivery, 'manual', null);
    // A result the database refuses now is kept for the retry; the caller hears why (503, 507).
    const failure = await this.flush(true);
    if (failure) throw failure;
    return (await this.deps.db.deliveries.findDelivery(delivery.id))!;
  }

  /**
   * Stops claiming, gives running attempts `graceMs` to finish and writes their results. Attempts
   * still running after that are abandoned: their deliveries stay marked in flight in the database
   * and are attempted again at the next start.
   */
  async close(graceMs = 1000): Promise<void> {
    this.closed = true;
    this.leases.close();
    const timeout = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.allSettled(this.running.values()), timeout]);
    await this.flush(true);
    this.completions = [];
    this.abandoned = true;
    this.retry.cancel();
  }

  private start(delivery: DeliveryRow, trigger: Trigger, lease: string | null): void {
    this.started += 1;
    // Counted by the receiver of the URL the claim partitioned by (the delivery's), so the cap agrees with it.
    const url = delivery.url;
    const receiver = receiverOf(url);
    this.perReceiver.set(receiver, (this.perReceiver.get(receiver) ?? 0) + 1);
    const epoch = this.epoch;
    // Its slot is claimed for once its result is written (flush): PostgreSQL counts the rows in flight
    // in the database, where it still was (no room found; the queue slept). Without a result, at once.
    const run = this.attemptNow(delivery, trigger, lease, { receiver, url })
      .catch((error: unknown): boolean => {
        // It could not start (reading the event failed): nothing was sent; the delivery goes back, due.
        if (epoch === this.epoch) {
          this.toRelease.push({ id: delivery.id, token: lease });
          this.retry.failed(error);
        }
        return false;
      })
      .then((queued) => {
        this.running.delete(delivery.id);
        const left = (this.perReceiver.get(receiver) ?? 1) - 1;
        if (left > 0) this.perReceiver.set(receiver, left);
        else this.perReceiver.delete(receiver);
        if (!queued) this.slotFreed(receiver, url);
        // Abandoned attempts write nothing, so no flush would tell `idle()` waiters they are done.
        this.wakeIdle();
      });
    this.running.set(delivery.id, run);
  }

  /** Sends one attempt; whether its result was queued for the next flush (which then frees `slot`). */
  private async attemptNow(delivery: DeliveryRow, trigger: Trigger, lease: string | null, slot?: { receiver: string; url: string }): Promise<boolean> {
    const epoch = this.epoch;
    const signal = this.abandon.signal;
    /** Whether the state this attempt belongs to was discarded: then nothing more is sent or written. */
    const discarded = () => epoch !== this.epoch;
    // Webhook chaos (CONTRACT §9): decided as the attempt starts, before its first await, so that
    // the seeded draws follow the order attempts start in. After the event's read they followed the
    // order the reads came back in, which on PostgreSQL (one pooled connection each) varies from run
    // to run: the same seed made other decisions (issue 27). A hold delays the attempt, in real time.
    const chaos = this.deps.chaos?.decide(delivery.partner_id, delivery.environment) ?? null;
    const event = await this.events.load(delivery.event_id);
    // Gone with its delivery: a reset or restore emptied the tables between the claim (one statement,
    // which does not wait for the reset lock) and this read. Nothing to send, nothing to write.
    if (!event) return false;
    const startedAt = this.deps.clock.now();
    if (chaos && chaos.holdMs > 0) await abortableDelay(chaos.holdMs, signal);
    if (discarded()) return false;
    const sent = await sendAttempt(this.deps, { delivery, event, chaos, trigger, attempt: delivery.attempt_count + 1, signal, discarded });
    if (!sent || discarded()) return false;
    const { url, result } = sent;
    const kinds = chaos?.kinds.length ? chaos.kinds.join(',') : null;
    this.completions.push({ deliveryId: delivery.id, trigger, url, startedAt, result, chaos: kinds, lease, ...(slot ? { slot } : {}) });
    this.scheduleFlush();
    return true;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.abandoned) return;
    this.flushScheduled = true;
    setImmediate(() => void this.flush());
  }

  private wakeIdle(): void {
    if (this.quiet) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /**
   * Writes every finished attempt and its delivery's new state, in one transaction (no busy wait:
   * background work); resolves the error, if not. Never rejects: it runs from timers.
   */
  private async flush(now = false): Promise<unknown> {
    this.flushScheduled = false;
    if (this.abandoned || (this.retry.waiting && !now)) return null;
    const batch = this.completions;
    const release = this.toRelease;
    this.completions = [];
    this.toRelease = [];
    if (batch.length || release.length) {
      const { db, clock, config } = this.deps;
      // A reset or restore while the transaction waits for its turn: these results belong to the
      // discarded state and are not written into the new one (CONTRACT §8).
      const epoch = this.epoch;
      let finished: Awaited<ReturnType<typeof recordHeldBatch>>;
      this.flushing += 1;
      try {
        finished = await db.transaction(
          async (tx) => (epoch === this.epoch ? recordHeldBatch(tx, clock.now(), config.webhooks.retrySchedule, batch, release) : []),
          { wait: false },
        );
        this.retry.succeeded();
      } catch (error) {
        // Nothing of it is written: kept, in order, for the retry (unless the state was discarded meanwhile).
        if (!this.abandoned && epoch === this.epoch) {
          this.completions = [...batch, ...this.completions];
          this.toRelease = [...release, ...this.toRelease];
          this.retry.failed(error);
        }
        return error;
      } finally {
        this.flushing -= 1;
      }
      if (release.length) this.kick();
      for (const c of batch) if (c.slot) this.slotFreed(c.slot.receiver, c.slot.url);
      for (const event of finished) {
        if (!event) continue;
        this.deps.emit(event);
        if (event.type === 'delivery.result' && event.nextAttemptAt !== null) this.deps.schedule?.(Date.parse(event.nextAttemptAt));
      }
    }
    this.wakeIdle();
    return null;
  }
}
