import type BetterSqlite3 from 'better-sqlite3';
import { isBusy } from '../errors.js';
import type { StorageHealth } from './health.js';
import { monotonicMs } from '../../clock/monotonic.js';

interface Queued {
  fn: () => unknown;
  queuedAt: number;
  /** false: rejected at once (SQLITE_BUSY) when another connection holds the write lock. */
  wait: boolean;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface GroupCommitDeps {
  /** Runs its argument with no busy wait (the store's `background`). */
  noWait: <T>(fn: () => T) => T;
  health: StorageHealth;
  /** How long a queued write may wait for another connection's lock. */
  waitMs: number;
}

/** The first retries come quickly (a short outside write); later ones less often. */
const RETRY_DELAYS_MS = [2, 5, 10, 25, 50];

/**
 * Group commit: a committed transaction costs page writes (every index page an insert touched), and
 * concurrent creates touch many of the same pages. Batching the creates of one event-loop turn into
 * one transaction, each in its own savepoint, pays for those pages once per batch.
 *
 * The batch takes the write lock first (`BEGIN IMMEDIATE`), without waiting: when another connection
 * holds it (the `sqlite3` shell, a script), the batch tries again on a timer, so reads and health keep
 * answering meanwhile (better-sqlite3's busy timeout would block the whole event loop). A write still
 * waiting after `waitMs` is refused with SQLITE_BUSY (503 `database_busy`).
 *
 * A batched function may be asynchronous (the store interface is, for PostgreSQL's sake): the batch
 * runs them one after another, each in its own savepoint, awaiting each. SQLite's repositories answer
 * with settled promises, so a whole batch still runs in one turn, before any other request's code; a
 * function that awaited anything else would hold up every write until it settled.
 */
export function groupCommit(sqlite: BetterSqlite3.Database, deps: GroupCommitDeps) {
  let queue: Queued[] = [];
  let scheduled = false;
  let attempt = 0;

  const schedule = (delay: number | null) => {
    scheduled = true;
    // A failure outside any one function (the connection broke mid-batch) fails what is queued
    // rather than leave its callers waiting.
    const go = () => void flush().catch((error: unknown) => rejectAll(queue.splice(0), error));
    if (delay === null) setImmediate(go);
    else setTimeout(go, delay);
  };

  let flushing = false;
  const savepoint = sqlite.prepare('SAVEPOINT batched');
  const release = sqlite.prepare('RELEASE batched');
  const rollbackTo = sqlite.prepare('ROLLBACK TO batched');

  const flush = async () => {
    scheduled = false;
    // One batch at a time on the one connection; the next is scheduled when this one ends.
    if (flushing || queue.length === 0) return;
    if (!sqlite.open) return rejectAll(queue.splice(0), new Error('the database is closed'));
    try {
      deps.noWait(() => sqlite.exec('BEGIN IMMEDIATE'));
    } catch (error) {
      if (!isBusy(error)) {
        deps.health.failed(error);
        return rejectAll(queue.splice(0), error);
      }
      // Another connection writes: give up on what waited long enough (background work at once),
      // try again for the rest.
      const now = monotonicMs();
      const expired = queue.filter((item) => !item.wait || now - item.queuedAt >= deps.waitMs);
      if (expired.length) {
        queue = queue.filter((item) => item.wait && now - item.queuedAt < deps.waitMs);
        rejectAll(expired, error);
      }
      if (queue.length) schedule(RETRY_DELAYS_MS[Math.min(attempt++, RETRY_DELAYS_MS.length - 1)]!);
      return;
    }
    attempt = 0;
    const batch = queue;
    queue = [];
    flushing = true;
    try {
      await run(batch);
    } finally {
      flushing = false;
      if (queue.length && !scheduled) schedule(null);
    }
  };

  const run = async (batch: Queued[]) => {
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    for (const item of batch) {
      try {
        savepoint.run();
        const value = await item.fn();
        release.run();
        outcomes.push({ ok: true, value });
      } catch (error) {
        deps.health.failed(error);
        outcomes.push({ ok: false, error });
        if (!sqlite.inTransaction) {
          // SQLite rolled the whole transaction back (it does on SQLITE_FULL and I/O errors): the
          // writes before this one are gone too. The rest go back in the queue for a new batch.
          queue = [...batch.slice(outcomes.length), ...queue];
          return rejectAll(batch.slice(0, outcomes.length), error);
        }
        // Only this function's writes are undone; the batch goes on.
        rollbackTo.run();
        release.run();
      }
    }
    try {
      sqlite.exec('COMMIT');
    } catch (error) {
      // The commit itself failed: nothing of the batch is stored.
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      deps.health.failed(error);
      return rejectAll(batch, error);
    }
    if (outcomes.some((o) => o.ok)) deps.health.committed();
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  };

  return <T>(fn: () => T | Promise<T>, wait = true): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!sqlite.open) return reject(new Error('the database is closed'));
      queue.push({ fn, queuedAt: monotonicMs(), wait, resolve: resolve as (v: unknown) => void, reject });
      if (!scheduled && !flushing) schedule(null);
    });
}

function rejectAll(items: Queued[], error: unknown): void {
  for (const item of items) item.reject(error);
}
