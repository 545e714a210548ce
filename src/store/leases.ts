import type { Lease } from './repos/deliveries.js';

/**
 * A claim's lease (CONTRACT §12, issue 28): a replica that dies holding claims loses them when their
 * leases end, and the next sweep of any other replica (every LEASE_SWEEP_MS at most) makes them due
 * again: taken over within 30 s of the death. Longer than an attempt's default timeout (10 s), and
 * renewed while the attempt runs, so the longest ones (a 60 s timeout, chaos holds, a duplicate sent
 * after) keep their claim.
 */
export const LEASE_MS = 25_000;

/**
 * The dispatcher's claim leases, as its engine keeps them (the store kit's `leases`): where several
 * processes share the queue each claim gets a lease (postgres/leases.ts); where one process holds
 * every claim (SQLite, CONTRACT §8) there are none, and no statement more per delivery.
 */
export interface ClaimLeases {
  /** A new claim's lease, or none. */
  next(): Lease | undefined;
  close(): void;
}

/** What the dispatcher hears from its leases. */
export interface LeaseHooks {
  /** Claims of a dead replica were made due again: there is work to claim. */
  onReleased(): void;
  onError(error: unknown): void;
}

/** One process holds every claim: no leases, nothing to sweep. */
export const noLeases: ClaimLeases = { next: () => undefined, close: () => {} };
