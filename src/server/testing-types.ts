/**
 * The shapes of the testing tools (CONTRACT §9) that the public API hands out: the request journal
 * and API faults. Like public-types.ts, this file imports nothing, so a consumer's compiler reaches
 * no package through them; the contract's response schemas must produce exactly these
 * (src/contract/schemas/testing.ts fails to compile otherwise).
 */

/** Who called, as the key said (CONTRACT §1). */
export interface JournalPrincipal {
  kind: 'partner' | 'merchant';
  environment: 'test' | 'live';
  partnerId: string;
  /** Set for merchant keys. */
  merchantId: string | null;
}

/** One API request the emulator answered (`/v1/…`), as the journal keeps it. */
export interface JournalEntry {
  /** The request's `Request-Id` (the header the client received). */
  id: string;
  /** When it arrived, emulator time (ISO 8601). */
  at: string;
  method: string;
  /** The path without the query string. */
  path: string;
  /** The query string as sent, without `?`; empty when there was none. */
  query: string;
  /** The status answered; null when the connection was dropped without an answer (a `drop` fault). */
  status: number | null;
  /** From arrival until the answer was handed to the connection. */
  durationMs: number;
  /** The key's owner; null when no valid key was sent. */
  principal: JournalPrincipal | null;
  /** The key sent, as its prefix and last four characters (`pt_test_…a1B2`); null without one. */
  key: string | null;
  /** The `Idempotency-Key` header as sent; null without one. */
  idempotencyKey: string | null;
  /** True when the answer was an idempotent replay. */
  replayed: boolean;
  /** The body as received (text); null when none was read. Keys and webhook secrets are masked. */
  requestBody: string | null;
  /** The body answered (text); null for none. */
  responseBody: string | null;
  /** True when a body was longer than 16 KiB and only its start is kept. */
  truncated: boolean;
  /** The id of the fault that shaped this answer (`Svc-Fault`), or null. */
  fault: string | null;
  /** Made by the emulator's dashboard (it sends `Svc-Client: dashboard`), not by your code. */
  fromDashboard: boolean;
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

/** Which requests a fault answers. Every field narrows; `{}` matches every `/v1` operation. */
export interface FaultMatch {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** A route template (`/v1/invoices/{id}`), a concrete path, or a prefix of either, by whole segments. */
  path?: string;
  environment?: 'test' | 'live';
}

/**
 * What a fault does: answer an error (`status` 400–599, `code` default from the status,
 * `retryAfter` seconds as `Retry-After`), hold the answer back `delayMs` (1–60,000), or drop the
 * connection without an answer.
 */
export type FaultAction = { status: number; code?: string; retryAfter?: number } | { delayMs: number } | { drop: true };

/** A fault to add (`POST /__emulator/faults`). */
export interface FaultSpec {
  match: FaultMatch;
  action: FaultAction;
  /** `before`: instead of running the operation; `after_commit`: after it ran and committed (2xx only). */
  when: 'before' | 'after_commit';
  /** How many requests it applies to (default: until cleared). */
  times?: number;
}

/** A fault the emulator holds. */
export interface Fault {
  id: string;
  match: FaultMatch;
  /** The action; an error's `code` is filled in with its default. */
  action: FaultAction;
  when: 'before' | 'after_commit';
  /** How many more requests it applies to; null: until cleared. A fault is gone once it reaches 0. */
  times: number | null;
  /** How many requests it has applied to. */
  fired: number;
  /** Emulator time (ISO 8601). */
  createdAt: string;
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
