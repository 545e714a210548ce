import type { ChangeTopic } from './changes.js';
import type { StoreDb } from './db.js';

/**
 * One JSON value in `meta` that every replica shares (CONTRACT §12: faults and chaos), with memory
 * as the cache the request path reads. Changes are written behind, in order: the caller's API stays
 * synchronous (the in-process promise of faults and chaos), `settled()` lets the control plane answer
 * only once the change is stored, and a reload never overtakes one of this replica's own writes.
 * Each write locks the row, applies the change to what is stored (other replicas' changes included),
 * tells the others on `topic`, and hands the stored value back to `cache`.
 */
export class WriteBehindMeta<T> {
  private writes: Promise<void> = Promise.resolve();
  private failed: unknown = null;

  constructor(
    private readonly options: {
      db: StoreDb;
      key: string;
      topic: ChangeTopic;
      /** Checks what is stored (a file restored from elsewhere may hold anything). */
      guard: (value: unknown) => value is T;
      /** What an absent row means; the row is created with it so that later writes can lock it. */
      empty: () => T;
      /** This replica's memory takes the stored value. */
      cache: (value: T) => void;
      /** A write failed (reported; `settled()` throws it once). */
      onError: (error: unknown) => void;
    },
  ) {}

  /** Loads the stored value into the cache, after this replica's writes still being stored. */
  reload(): Promise<void> {
    const { db, key, guard, empty, cache } = this.options;
    const load = async () => {
      const stored = await db.meta.getMeta(key, guard);
      if (stored === undefined) await db.meta.setMeta(key, empty());
      cache(stored ?? empty());
    };
    const done = this.writes.then(load);
    this.writes = done.catch(() => {});
    return done;
  }

  /** Applies `change` to the stored value under its row lock, after the writes before it. */
  write(change: (value: T) => T): void {
    const { db, key, topic, guard, empty, cache, onError } = this.options;
    this.writes = this.writes.then(() =>
      db
        .transaction(async (tx) => {
          await tx.meta.lockMeta(key);
          const next = change((await tx.meta.getMeta(key, guard)) ?? empty());
          await tx.meta.setMeta(key, next);
          await tx.publish(topic);
          return next;
        })
        .then(cache)
        .catch((error: unknown) => {
          this.failed = error;
          onError(error);
        }),
    );
  }

  /** Resolves once every write so far is stored; throws (once) the failure of one that was not. */
  settled(): Promise<void> {
    return this.writes.then(() => {
      const error = this.failed;
      this.failed = null;
      if (error) throw error;
    });
  }

  /** Runs `fn` after this replica's writes still being stored. */
  after<R>(fn: () => Promise<R>): Promise<R> {
    return this.writes.then(fn);
  }
}
