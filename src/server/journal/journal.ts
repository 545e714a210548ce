import type { JournalEntry } from '../../contract/testing-types.js';
import type { JournalFilter } from '../public-types.js';
import type { Principal } from '../route.js';
import { maskBody, maskKeysInText, maskQuery } from './mask.js';

/** How much of each body an entry keeps (characters). */
export const BODY_LIMIT = 16 * 1024;
export const DEFAULT_JOURNAL_SIZE = 1000;
export const MAX_JOURNAL_SIZE = 100_000;

/**
 * One request as it is served: the app fills it in as it learns things, the journal keeps it once
 * answered. Plain fields only, no copies of what the request path already holds (the body text,
 * the response text, the cached principal); the `Authorization` header is masked on the way in.
 */
export interface JournalRecord extends Omit<JournalEntry, 'at' | 'principal'> {
  /** Emulator time of arrival (ms); the entry says it in ISO 8601. */
  at: number;
  /** The key's owner as authentication found it; the entry keeps the fields the contract shows. */
  principal: Principal | null;
  /**
   * Set on an entry another replica wrote to the shared journal (PostgreSQL, ./shared-journal.ts):
   * its path, query and bodies were masked before they were stored, and are shown as they are.
   */
  masked?: true;
}

/**
 * What the server uses of a request journal: this ring on SQLite, the shared table on PostgreSQL
 * (./shared-journal.ts). The HTTP API's reads may wait for the database; the in-process API's
 * (`find`, `clearNow`) never do.
 */
export interface RequestJournal {
  readonly capacity: number;
  /** Records an answered request; never waits (the request was answered already). */
  add(record: JournalRecord): void;
  page(query: JournalQuery): { data: JournalEntry[]; hasMore: boolean } | null | Promise<{ data: JournalEntry[]; hasMore: boolean } | null>;
  get(id: string): JournalEntry | null | Promise<JournalEntry | null>;
  /** Empties the journal (on PostgreSQL, every replica's); resolves to how many entries it held. */
  clear(): number | Promise<number>;
  /** The in-process `emulator.requests(filter)`: synchronous. */
  find(filter?: JournalFilter): JournalEntry[];
  /** The in-process `emulator.clearRequests()`: synchronous. */
  clearNow(): number;
  /** Each record this process adds, as it is added (the requests stream's source). */
  subscribe(listener: Listener): () => void;
  /** How many listeners each add() calls (CONTRACT §8: one per stream kind, never one per reader). */
  readonly listenerCount: number;
  /** Writes what is still pending (PostgreSQL); called once the server stopped answering. */
  close?(): Promise<void>;
}

export interface JournalQuery extends Omit<JournalFilter, 'limit'> {
  limit: number;
  startingAfter?: string | undefined;
}

/** Receives each record as it is added; presenting it (masking, dates) is the listener's choice. */
type Listener = (record: JournalRecord) => void;

/**
 * The request journal (CONTRACT §9): a ring of the last `capacity` API requests, newest first when
 * read. Recording stores a reference in a preallocated slot; masking, ISO dates and filtering
 * happen when someone reads, so the create path pays for one small object per request.
 */
export class Journal implements RequestJournal {
  private readonly slots: (JournalRecord | undefined)[];
  /** The slot the next record goes to. */
  private next = 0;
  private count = 0;
  private readonly listeners = new Set<Listener>();

  constructor(readonly capacity: number) {
    this.slots = new Array(capacity).fill(undefined);
  }

  add(record: JournalRecord): void {
    if (this.capacity === 0) return;
    this.slots[this.next] = record;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    for (const listener of this.listeners) {
      try {
        listener(record);
      } catch {
        // A stream's failure is its own; the request was answered.
      }
    }
  }

  /** Entries matching `filter`, newest first. */
  find(filter: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const test = matcher(filter);
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    for (const record of this.newestFirst()) {
      if (out.length >= limit) break;
      if (test(record)) out.push(present(record));
    }
    return out;
  }

  /**
   * A page of §3: `limit` entries after `startingAfter` (an entry id), newest first. Returns null
   * when `startingAfter` is not an entry the filter keeps (evicted, cleared, or filtered out).
   */
  page(query: JournalQuery): { data: JournalEntry[]; hasMore: boolean } | null {
    const test = matcher(query);
    const data: JournalEntry[] = [];
    let started = query.startingAfter === undefined;
    for (const record of this.newestFirst()) {
      if (!test(record)) continue;
      if (!started) {
        started = record.id === query.startingAfter;
        continue;
      }
      if (data.length === query.limit) return { data, hasMore: true };
      data.push(present(record));
    }
    return started ? { data, hasMore: false } : null;
  }

  /** The entry with this request id, or null when the ring does not hold it (never journaled, evicted, cleared). */
  get(id: string): JournalEntry | null {
    for (const record of this.newestFirst()) if (record.id === id) return present(record);
    return null;
  }

  /** Empties the ring; returns how many entries it held. */
  clear(): number {
    const had = this.count;
    this.slots.fill(undefined);
    this.next = 0;
    this.count = 0;
    return had;
  }

  clearNow(): number {
    return this.clear();
  }

  /** How many listeners each add() calls: one per stream kind, never one per reader (CONTRACT §8). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Calls `listener` with each entry as it is recorded; returns an unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private *newestFirst(): Generator<JournalRecord> {
    for (let i = 1; i <= this.count; i++) {
      const record = this.slots[(this.next - i + this.capacity) % this.capacity];
      if (record) yield record;
    }
  }
}

/** Whether a record passes a filter (method any case, path a prefix, invoiceId in path or response). */
export function matcher(filter: Omit<JournalFilter, 'limit'>): (record: JournalRecord) => boolean {
  const method = filter.method?.toUpperCase();
  const { path, status, invoiceId, fromDashboard } = filter;
  return (r) =>
    (fromDashboard === undefined || r.fromDashboard === fromDashboard) &&
    (method === undefined || r.method === method) &&
    (path === undefined || r.path.startsWith(path)) &&
    (status === undefined || r.status === status) &&
    (invoiceId === undefined || r.path.includes(invoiceId) || (r.responseBody?.includes(invoiceId) ?? false));
}

/** The public shape of a record: ISO time, a copy of the principal, masked bodies. */
export function present(r: JournalRecord): JournalEntry {
  const p = r.principal;
  const masked = r.masked === true;
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    method: r.method,
    path: masked ? r.path : maskKeysInText(r.path),
    query: masked ? r.query : maskQuery(r.query),
    status: r.status,
    durationMs: Math.round(r.durationMs * 100) / 100,
    principal: p ? { kind: p.kind, environment: p.environment, partnerId: p.partnerId, merchantId: p.merchantId } : null,
    key: r.key,
    // A key pasted as an Idempotency-Key is a key all the same (issue 40).
    idempotencyKey: r.idempotencyKey === null || masked ? r.idempotencyKey : maskKeysInText(r.idempotencyKey),
    replayed: r.replayed,
    requestBody: r.requestBody === null || masked ? r.requestBody : maskBody(r.requestBody),
    responseBody: r.responseBody === null || masked ? r.responseBody : maskBody(r.responseBody),
    truncated: r.truncated,
    fault: r.fault,
    fromDashboard: r.fromDashboard,
  };
}

/**
 * At most BODY_LIMIT characters of `text`, as a string of its own: a slice of a longer string would
 * keep the whole of it alive in the ring (V8's sliced strings point into their parent).
 */
export function keptText(text: string, record: JournalRecord): string {
  if (text.length <= BODY_LIMIT) return text;
  record.truncated = true;
  return Buffer.from(text.slice(0, BODY_LIMIT), 'utf8').toString('utf8');
}

/** The first BODY_LIMIT bytes of a request body, decoded on their own. */
export function keptBody(raw: Buffer, record: JournalRecord): string {
  if (raw.length <= BODY_LIMIT) return raw.toString('utf8');
  record.truncated = true;
  return raw.toString('utf8', 0, BODY_LIMIT);
}
