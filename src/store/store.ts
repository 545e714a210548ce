import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { staticMigrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';

/**
 * An open database. Queries run synchronously on better-sqlite3 (see `query.ts`): a request's reads
 * and writes happen in one synchronous transaction, so no other request can interleave with them.
 */
export interface Store {
  readonly sqlite: BetterSqlite3.Database;
  readonly file: string;
  /** Runs `fn` in one transaction (a savepoint when nested). */
  tx<T>(fn: () => T): T;
  /**
   * Runs `fn` in a transaction shared with the other batched work of this event-loop turn, inside
   * its own savepoint (a throw undoes only its own writes). Resolves after the shared commit, so a
   * caller that answers afterwards never acknowledges what a crash could still lose.
   */
  batch<T>(fn: () => T): Promise<T>;
  close(): void;
}

export interface OpenStoreOptions {
  /** A file path, or ':memory:' for a throwaway database. */
  file: string;
}

/** Opens (creating when needed) and migrates the database. */
export async function openStore({ file }: OpenStoreOptions): Promise<Store> {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  if (file !== ':memory:') sqlite.pragma('journal_mode = WAL');
  // NORMAL is durable against a killed process in WAL mode (the log is in the OS already);
  // only a power loss can take the last transactions, which an emulator can live with.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');

  await migrate(sqlite);

  // One transaction wrapper for every call: `sqlite.transaction(fn)` builds a new wrapper (and its
  // deferred/immediate/exclusive variants) each time, which showed in profiles of the create path.
  const inTransaction = sqlite.transaction((fn: () => unknown) => fn());
  const batcher = groupCommit(sqlite, inTransaction);
  return {
    sqlite,
    file,
    tx: <T>(fn: () => T) => inTransaction(fn) as T,
    batch: batcher,
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}

async function migrate(sqlite: BetterSqlite3.Database): Promise<void> {
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  // Kysely's driver would close the database on destroy(); migrations borrow it instead.
  const { error, results } = await new Migrator({ db, provider: staticMigrationProvider }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}

interface Queued {
  fn: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit: a committed transaction costs page writes (every index page an insert touched), and
 * concurrent creates touch many of the same pages. Batching the creates of one event-loop turn into
 * one transaction, each in its own savepoint, pays for those pages once per batch.
 */
function groupCommit(sqlite: BetterSqlite3.Database, inTransaction: (fn: () => unknown) => unknown) {
  let queue: Queued[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    let outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[];
    try {
      outcomes = inTransaction(() =>
        batch.map((item) => {
          try {
            return { ok: true as const, value: inTransaction(item.fn) };
          } catch (error) {
            return { ok: false as const, error };
          }
        }),
      ) as typeof outcomes;
    } catch (error) {
      // The commit itself failed: nothing of the batch is stored.
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  };
  return <T>(fn: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!sqlite.open) return reject(new Error('the database is closed'));
      if (queue.length === 0) setImmediate(flush);
      queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
    });
}
