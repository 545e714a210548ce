import type { JournalEntry } from '../contract/testing-types.js';

/** What `GET /__emulator/requests` filters by; the same meaning as the ring's matcher (server/journal/journal.ts). */
export interface JournalRowFilter {
  method?: string | undefined;
  path?: string | undefined;
  status?: number | undefined;
  invoiceId?: string | undefined;
  fromDashboard?: boolean | undefined;
}

/**
 * The request journal as a table several processes share (CONTRACT §9, §12), where the store kit has
 * one (PostgreSQL: postgres/journal.ts): rows hold entries as presented (masked). The server's side is
 * server/journal/shared-journal.ts. Where processes do not share a database, the journal is a ring
 * in memory and there is no table.
 */
export interface JournalTable {
  /**
   * Writes `entries` (in order) as `replica`'s, and tells the other processes which rows they were
   * (the `journal` change, with the writer and the range); the range of `seq` they got.
   */
  insert(replica: string, entries: readonly JournalEntry[]): Promise<{ from: number; to: number } | null>;
  /** Keeps the newest `capacity` rows, deleting from `from` (seq) on; where the next trim starts, or null. */
  trim(capacity: number, from: number): Promise<number | null>;
  /** The entries `replica` wrote with seq from `from` to `to`, in write order. */
  entriesOf(replica: string, from: number, to: number): Promise<JournalEntry[]>;
  /** A page, newest first: `limit` entries after `startingAfter`; null when that entry is not one the filter keeps. */
  page(
    capacity: number,
    filter: JournalRowFilter,
    limit: number,
    startingAfter: string | undefined,
  ): Promise<{ data: JournalEntry[]; hasMore: boolean } | null>;
  /** The newest entry with this Request-Id among the newest `capacity`, or null. */
  entry(capacity: number, id: string): Promise<JournalEntry | null>;
  /** Empties it for every process; how many entries it held. */
  clear(): Promise<number>;
}
