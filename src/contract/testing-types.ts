/**
 * The wire shapes of the testing tools (CONTRACT §9): the request journal, API faults, snapshots and
 * webhook chaos, as the public API (src/index.ts) and the HTTP API hand them out. Hand-written for their doc
 * comments, and importing nothing, so that a consumer's compiler reaches no package through them; the
 * contract's schemas must produce exactly these (the `Equal` checks in ./schemas/testing.ts,
 * ./schemas/snapshots.ts and ./schemas/chaos.ts fail to compile otherwise).
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

/** A saved snapshot, as `GET /__emulator/snapshots` lists it (CONTRACT §9). */
export interface SnapshotInfo {
  name: string;
  /** Emulator time when it was saved, ISO 8601. */
  createdAt: string;
  bytes: number;
}

/** Webhook chaos of one partner in one environment (CONTRACT §9); absent fields are off. */
export interface ChaosSpec {
  /** Probability (0–1) that an attempt is sent twice: the same envelope, the same `id`. */
  duplicate?: number;
  /** Hold each attempt back a random moment (up to 1 s), so that deliveries arrive out of order. */
  reorder?: boolean;
  /** Hold each attempt back between `min` and `max` milliseconds. */
  delayMs?: [number, number];
  /** Probability that an attempt is signed with a wrong secret. */
  badSignature?: number;
  /** Probability that an attempt's signature timestamp is 6 minutes old (otherwise correctly signed). */
  staleTimestamp?: number;
  /** Seeds the decisions: the same seed and the same events make the same decisions. Default 0. */
  seed?: number;
}
