/**
 * Shapes of the in-process API (src/index.ts: `startEmulator`'s emulator) that do not go on the wire,
 * kept apart from the modules that build them. Those import the database layer, and a consumer's
 * compiler reads every declaration file the API's types reach: with `skipLibCheck: false` that would
 * mean better-sqlite3's types, which are ours to install, not theirs. Import nothing here that reaches
 * src/store/. The wire shapes themselves are in src/contract/ (testing-types.ts, default-keys.ts).
 */
import type { Fault, FaultSpec } from '../contract/testing-types.js';

/** What `advanceClock` did. */
export interface AdvanceReport {
  /** Emulator time before and after, in milliseconds since the epoch. */
  from: number;
  to: number;
  /** Invoices that expired on the way. */
  expired: number;
  /** Webhook delivery attempts that fell due and were made. */
  attempts: number;
}

/** Which journal entries to return. Every field narrows; none means all. */
export interface JournalFilter {
  /** `GET`, `POST`, … (any case). */
  method?: string;
  /** A path prefix, e.g. `/v1/invoices`. */
  path?: string;
  status?: number;
  /** Requests whose path or response body names this invoice. */
  invoiceId?: string;
  /** true: only the dashboard's own requests; false: leave them out; absent: both. */
  fromDashboard?: boolean;
  /** At most this many, newest first (default: all). */
  limit?: number;
}

/** `emulator.faults`: the in-process side of `/__emulator/faults`. */
export interface FaultControl {
  /** Adds a fault; throws the HTTP API's error (`validation_failed`, `param` naming the field) for a spec it would refuse. */
  add(spec: FaultSpec): Fault;
  /** The faults in force, oldest first. */
  list(): Fault[];
  /** Removes the fault `id`, or every fault; returns how many were removed. */
  clear(id?: string): number;
}
