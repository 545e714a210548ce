import { randomUUID } from 'node:crypto';
import type { StoreDb } from '../db.js';
import { type ClaimLeases, LEASE_MS, type LeaseHooks } from '../leases.js';
import type { Lease } from '../repos/deliveries.js';

const LEASE_SWEEP_MS = 5_000;

/**
 * The dispatcher's leases on PostgreSQL, where several replicas share the queue: each claim gets a
 * token `<owner>.<n>` and an end in wall-clock ms; a timer renews this dispatcher's leases and
 * releases other replicas' expired ones.
 */
export class PostgresLeases implements ClaimLeases {
  /** This dispatcher's name in lease tokens: fresh per process (never the seeded random: ids would shift). */
  private readonly owner = randomUUID();
  private claimCount = 0;
  private readonly leaseMs: number;
  private readonly timer: NodeJS.Timeout;
  private sweeping = false;
  private closed = false;

  constructor(
    private readonly db: StoreDb,
    /** Default LEASE_MS; tests of dying replicas shorten it. */
    leaseMs: number | undefined,
    private readonly hooks: LeaseHooks,
  ) {
    this.leaseMs = leaseMs ?? LEASE_MS;
    this.timer = setInterval(() => void this.sweep(), Math.min(LEASE_SWEEP_MS, this.leaseMs / 5));
    this.timer.unref();
  }

  /**
   * A new claim's lease: its token, and how long it lasts unless renewed (measured on the database's
   * clock, never the emulator clock, which tests move by hours).
   */
  next(): Lease {
    this.claimCount += 1;
    return { token: `${this.owner}.${this.claimCount}`, ms: this.leaseMs };
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
      await this.db.deliveries.renewLeases(this.owner, this.leaseMs);
      const released = await this.db.deliveries.releaseExpiredLeases(this.leaseMs);
      if (released > 0) this.hooks.onReleased();
    } catch (error) {
      if (!this.closed) this.hooks.onError(error);
    } finally {
      this.sweeping = false;
    }
  }
}
