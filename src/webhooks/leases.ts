import { osUuid } from '../domain/os-random.js';
import type { StoreDb } from '../store/db.js';
import type { Lease } from '../store/repos/deliveries.js';

/**
 * A claim's lease (CONTRACT §12, issue 28), in wall-clock ms: a replica that dies holding claims
 * loses them when their leases end, and the next sweep of any other replica (every LEASE_SWEEP_MS
 * at most) makes them due again: taken over within 30 s of the death. Longer than an attempt's
 * default timeout (10 s), and renewed while the attempt runs, so the longest ones (a 60 s timeout,
 * chaos holds, a duplicate sent after) keep their claim.
 */
export const LEASE_MS = 25_000;
const LEASE_SWEEP_MS = 5_000;

/**
 * The dispatcher's leases on PostgreSQL, where several replicas share the queue: each claim gets a
 * token `<owner>.<n>` and an end in wall-clock ms; a timer renews this dispatcher's leases and
 * releases other replicas' expired ones. SQLite's one owner (CONTRACT §8) claims without leases:
 * `next()` gives none and nothing sweeps, so there is no statement more per delivery there.
 */
export class ClaimLeases {
  /** This dispatcher's name in lease tokens: fresh per process (never the seeded random: ids would shift). */
  private readonly owner = osUuid();
  private claimCount = 0;
  private readonly leaseMs: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private closed = false;

  constructor(
    private readonly deps: {
      db: StoreDb;
      /** Default LEASE_MS; tests of dying replicas shorten it. */
      leaseMs?: number | undefined;
      /** Claims of a dead replica were made due again: there is work to claim. */
      onReleased(): void;
      onError(error: unknown): void;
    },
  ) {
    this.leaseMs = deps.leaseMs ?? LEASE_MS;
    // SQLite has one owner (CONTRACT §8) that releases every claim at start: no leases, nothing to sweep.
    if (deps.db.kind === 'postgres') {
      this.timer = setInterval(() => void this.sweep(), Math.min(LEASE_SWEEP_MS, this.leaseMs / 5));
      this.timer.unref();
    }
  }

  /**
   * A new claim's lease: its token, and when it ends unless renewed (wall-clock ms, never the
   * emulator clock, which tests move by hours). None on SQLite.
   */
  next(): Lease | undefined {
    if (this.timer === undefined) return undefined;
    this.claimCount += 1;
    return { token: `${this.owner}.${this.claimCount}`, until: Date.now() + this.leaseMs };
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  /**
   * Renews this dispatcher's leases, then makes due again the claims whose lease ended (a replica
   * that died). Two statements on the few claimed rows (deliveries_leased); a failure is reported
   * and the next sweep tries again. Never rejects: it runs from a timer.
   */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.closed) return;
    this.sweeping = true;
    try {
      const wallNow = Date.now();
      await this.deps.db.deliveries.renewLeases(this.owner, wallNow + this.leaseMs);
      const released = await this.deps.db.deliveries.releaseExpiredLeases(wallNow);
      if (released > 0) this.deps.onReleased();
    } catch (error) {
      if (!this.closed) this.deps.onError(error);
    } finally {
      this.sweeping = false;
    }
  }
}
