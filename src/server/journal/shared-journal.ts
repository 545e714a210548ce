import { randomUUID } from 'node:crypto';
import type { JournalEntry } from '../../contract/testing-types.js';
import { Backoff } from '../../store/backoff.js';
import type { ChangeData } from '../../store/changes.js';
import type { StoreDb } from '../../store/db.js';
import type { JournalTable } from '../../store/journal-table.js';
import type { JournalFilter } from '../public-types.js';
import { Journal, type JournalQuery, type JournalRecord, present, type RequestJournal } from './journal.js';
import { monotonicMs } from '../../clock/monotonic.js';

/**
 * The request journal on PostgreSQL (CONTRACT §9 and §12: "shared through the database: … the
 * request journal"): a bounded table every replica writes and reads, so that any replica answers
 * `GET /__emulator/requests` with the same entries.
 *
 * Written behind the request: an answered request costs what it costs on SQLite (a reference kept),
 * and once per turn of the event loop the entries gathered meanwhile are masked (`present`) and
 * written in one multi-row INSERT that also notifies the other replicas; every tenth of `capacity`
 * rows, the table is trimmed to `capacity` in one DELETE. Only masked
 * text reaches the database. A replica's own reads wait for its writes (it reads what it answered);
 * another replica's entries show once their batch committed, a moment later.
 *
 * The ring is kept beside the table, holding this process's requests only: the in-process API
 * (`emulator.requests()`, synchronous) and the local requests stream read it, as on SQLite.
 */
/**
 * A full trim (from the first row) at most this often; the others start where the last stopped. A
 * full trim walks the index over every row deleted since the table was last vacuumed (autovacuum
 * looks once a minute): under 10,000 reads a second one took ~200 ms of the server's CPU, and one
 * every 64 trims, as before, was 85% of the journal's trimming and a sixth of the server's CPU
 * (issue 27, measured with pg_stat_statements). A minute apart, vacuum has passed in between.
 */
const FULL_TRIM_INTERVAL_MS = 60_000;

export class SharedJournal implements RequestJournal {
  /** Names this replica's rows, so that a notification "rows a..b of replica r" reads exactly those. */
  readonly replica = randomUUID();
  private readonly ring: Journal;
  private pending: JournalRecord[] = [];
  private scheduled = false;
  /** Writes (batches, clears) one after another; reads wait for it. Never rejects. */
  private tail: Promise<void> = Promise.resolve();
  private readonly backoff = new Backoff(100, 5000);
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** The newest `seq` when this replica last trimmed the table. */
  private trimmedAt = 0;
  /** Where this replica's last trim stopped: the next deletes from there (see trimJournal). */
  private trimmedBelow = 0;
  /** When this replica last trimmed from the first row (monotonicMs()): see FULL_TRIM_INTERVAL_MS. */
  private fullTrimAt = -Infinity;

  constructor(
    private readonly table: JournalTable,
    private readonly db: Pick<StoreDb, 'publish'>,
    capacity: number,
    /** A batch the database refused (kept and tried again) or a notification that failed. */
    private readonly onError: (error: unknown) => void,
  ) {
    this.ring = new Journal(capacity);
  }

  get capacity(): number {
    return this.ring.capacity;
  }

  add(record: JournalRecord): void {
    if (this.capacity === 0 || this.closed) return;
    this.ring.add(record);
    this.pending.push(record);
    // While the database is away the backlog stays bounded: only the newest `capacity` would survive the trim anyway.
    if (this.pending.length > this.capacity) this.pending.splice(0, this.pending.length - this.capacity);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.run(async () => {});
    });
  }

  async page(query: JournalQuery): Promise<{ data: JournalEntry[]; hasMore: boolean } | null> {
    // Off (journalSize 0): nothing kept, as the ring answers.
    if (this.capacity === 0) return query.startingAfter === undefined ? { data: [], hasMore: false } : null;
    return this.run(() => this.table.page(this.capacity, query, query.limit, query.startingAfter));
  }

  async get(id: string): Promise<JournalEntry | null> {
    if (this.capacity === 0) return null;
    return this.run(() => this.table.entry(this.capacity, id));
  }

  /** Empties the table for every replica (after this one's pending entries went in, so they go too). */
  async clear(): Promise<number> {
    this.ring.clear();
    const deleted = await this.run(() => this.table.clear());
    // The others' rings (their in-process view) empty too.
    await this.db.publish('journal', { cleared: true });
    return deleted;
  }

  find(filter?: JournalFilter): JournalEntry[] {
    return this.ring.find(filter);
  }

  /** The in-process clear answers at once: the ring's count; the table's DELETE follows in order. */
  clearNow(): number {
    const had = this.ring.clearNow();
    this.clear().catch(this.onError);
    return had;
  }

  subscribe(listener: (record: JournalRecord) => void): () => void {
    return this.ring.subscribe(listener);
  }

  get listenerCount(): number {
    return this.ring.listenerCount;
  }

  /**
   * What another replica's notification announced (`{r, from, to}`, or `{cleared}`): its new entries,
   * in write order, as records already masked; [] for a clear (this ring empties).
   */
  async heard(data: ChangeData): Promise<JournalRecord[]> {
    if (data.cleared === true) {
      this.ring.clear();
      return [];
    }
    const { r, from, to } = data;
    if (typeof r !== 'string' || typeof from !== 'number' || typeof to !== 'number') return [];
    const entries = await this.table.entriesOf(r, from, to);
    return entries.map((entry) => ({ ...entry, at: Date.parse(entry.at), masked: true }));
  }

  /** Writes what is pending (a stop); nothing is added afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.run(async () => {});
  }

  /** `work` after every write queued before it, and after this replica's pending entries are written. */
  private run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(() => this.flush()).then(work);
    this.tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  /** One batch: one INSERT with its notification, a trim now and then. Never rejects. */
  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    let range: { from: number; to: number } | null;
    try {
      range = await this.table.insert(this.replica, batch.map(present));
    } catch (error) {
      // Kept, before what came since, for the retry (bounded by add); the database may be restarting.
      this.pending = [...batch, ...this.pending].slice(-this.capacity);
      this.onError(error);
      this.retryLater();
      return;
    }
    this.backoff.reset();
    // The table may hold a tenth more than `capacity` between trims (readers see the newest
    // `capacity` only): a trim per batch was a round trip behind every request when requests came
    // one at a time.
    if (!range || range.to - this.trimmedAt < Math.max(1, Math.ceil(this.capacity / 10))) return;
    try {
      // Now and then from the start: a row another replica numbered before this replica's cutoff
      // but committed after its trim lies below where the next trims start, and would stay.
      const full = monotonicMs() - this.fullTrimAt >= FULL_TRIM_INTERVAL_MS;
      if (full) this.fullTrimAt = monotonicMs();
      const from = full ? 0 : this.trimmedBelow;
      this.trimmedBelow = (await this.table.trim(this.capacity, from)) ?? this.trimmedBelow;
      this.trimmedAt = range.to;
    } catch (error) {
      // The rows are in: the next batch trims.
      this.onError(error);
    }
  }

  private retryLater(): void {
    if (this.closed) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.run(async () => {}), this.backoff.next());
    // A replica waiting for its database must not keep a process alive.
    this.retry.unref();
  }
}
