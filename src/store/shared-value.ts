import type { ChangeTopic } from './changes.js';
import type { StoreDb } from './db.js';

/**
 * One JSON value every process of a sandbox shares (CONTRACT §12: faults, webhook chaos), as the
 * store kit keeps it: this process's memory where it is the only one (SQLite), a `meta` row where
 * several share the database (PostgreSQL). `current` is what the request path reads: the value as
 * stored when last loaded or written here (ARCHITECTURE habit 13: memory is a cache of the store).
 *
 * Writes keep the caller's API synchronous (the in-process `emulator.faults.add`): `write` changes
 * `current` at once and stores the change behind, in order; `settled()` lets the control plane
 * answer only once it is stored, and a reload never overtakes one of this process's own writes.
 */
export interface SharedValue<T> {
  readonly current: T;
  /** Loads the stored value (other processes' changes included), after this process's writes still being stored. */
  reload(): Promise<void>;
  /** Applies `change` to `current` now, and to the stored value under its lock after the writes before it. */
  write(change: (value: T) => T): void;
  /**
   * A change whose answer the caller needs (a fault's use, counted across processes): applied to the
   * stored value under its lock, after this process's writes; resolves to what `change` answered.
   */
  update<R>(change: (value: T) => { value: T; answer: R }): Promise<R>;
  /** Resolves once every write so far is stored; throws (once) the failure of one that was not. */
  settled(): Promise<void>;
}

export interface SharedValueOptions<T> {
  /** Its `meta` key, where it is stored. */
  key: string;
  /** What the other processes hear when it changes (../changes.ts). */
  topic: ChangeTopic;
  /** Checks what is stored (a file restored from elsewhere may hold anything). */
  guard: (value: unknown) => value is T;
  /** What an absent value means. */
  empty: () => T;
  /** A write failed (reported; `settled()` throws it once). */
  onError: (error: unknown) => void;
}

/** A value only this process holds (one emulator per database: SQLite, CONTRACT §8): memory is all there is. */
export class MemoryValue<T> implements SharedValue<T> {
  current: T;

  constructor(options: Pick<SharedValueOptions<T>, 'empty'>) {
    this.current = options.empty();
  }

  reload(): Promise<void> {
    return Promise.resolve();
  }

  write(change: (value: T) => T): void {
    this.current = change(this.current);
  }

  update<R>(change: (value: T) => { value: T; answer: R }): Promise<R> {
    const { value, answer } = change(this.current);
    this.current = value;
    return Promise.resolve(answer);
  }

  settled(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * A value in `meta` that every replica on the database shares. Each write locks the row, applies
 * the change to what is stored (other replicas' changes included), tells the others on `topic`,
 * and takes the stored result as `current`.
 */
export class StoredValue<T> implements SharedValue<T> {
  current: T;
  private writes: Promise<void> = Promise.resolve();
  private failed: unknown = null;

  constructor(
    private readonly db: StoreDb,
    private readonly options: SharedValueOptions<T>,
  ) {
    this.current = options.empty();
  }

  reload(): Promise<void> {
    const { key, guard, empty } = this.options;
    const load = async () => {
      this.current = (await this.db.meta.getMeta(key, guard)) ?? empty();
    };
    const done = this.writes.then(load);
    this.writes = done.catch(() => {});
    return done;
  }

  write(change: (value: T) => T): void {
    this.current = change(this.current);
    const stored = this.update((value) => ({ value: change(value), answer: undefined }));
    this.writes = stored.catch((error: unknown) => {
      this.failed = error;
      this.options.onError(error);
    });
  }

  update<R>(change: (value: T) => { value: T; answer: R }): Promise<R> {
    const { key, topic, guard, empty } = this.options;
    const run = () =>
      this.db.transaction(async (tx) => {
        await tx.meta.lockMeta(key);
        const { value, answer } = change((await tx.meta.getMeta(key, guard)) ?? empty());
        await tx.meta.setMeta(key, value);
        await tx.publish(topic);
        return { value, answer };
      });
    const done = this.writes.then(run).then(({ value, answer }) => {
      // What is stored now, other replicas' changes included, is this one's too.
      this.current = value;
      return answer;
    });
    this.writes = done.then(
      () => {},
      () => {},
    );
    return done;
  }

  settled(): Promise<void> {
    return this.writes.then(() => {
      const error = this.failed;
      this.failed = null;
      if (error) throw error;
    });
  }
}
