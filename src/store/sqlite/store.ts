import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { claimDatabase, type Claim } from './claim.js';
import { DatabaseFileError } from '../errors.js';
import { checkDatabaseFile, describeSqliteFailure } from '../file-check.js';
import { groupCommit } from './group-commit.js';
import { StorageHealth } from './health.js';
import { openSqlite } from '../sqlite.js';
import { openMemoryDatabase } from './empty-image.js';
import { migrate, MigrationError, UnknownMigrationsError } from '../migrate.js';
import { loadQueryBuilder } from '../query.js';
import { errorCode } from '../../domain/caught.js';

/** How long a write waits for another connection's lock before it answers 503 (CONTRACT §8). */
export const LOCK_WAIT_MS = 5000;

/**
 * An open database. Queries run synchronously on better-sqlite3 (see `query.ts`): a request's reads
 * and writes happen in one synchronous transaction, so no other request can interleave with them.
 */
export interface Store {
  readonly sqlite: BetterSqlite3.Database;
  readonly file: string;
  /** Whether the last writes could be stored (disk full turns this into a reason). */
  readonly health: StorageHealth;
  /**
   * Runs `fn` in one `BEGIN IMMEDIATE` transaction (a savepoint when nested). Waits for another
   * connection's lock up to 5 s, blocking: for short synchronous writes of requests.
   */
  tx<T>(fn: () => T): T;
  /**
   * Runs `fn` in a transaction shared with the other batched work of this event-loop turn, inside
   * its own savepoint (a throw undoes only its own writes). Resolves after the shared commit, so a
   * caller that answers afterwards never acknowledges what a crash could still lose. Waits for a
   * lock held elsewhere without blocking the event loop, up to 5 s, then rejects with SQLITE_BUSY.
   */
  batch<T>(fn: () => T | Promise<T>, wait?: boolean): Promise<T>;
  /**
   * Runs `fn` without waiting for locks: a lock held by another connection throws SQLITE_BUSY at
   * once. For background work, which tries again later rather than stall every request.
   */
  background<T>(fn: () => T): T;
  close(): void;
}

export interface OpenStoreOptions {
  /** A file path, or ':memory:' for a throwaway database. */
  file: string;
  /**
   * Claim the file for this process's lifetime, in these words (`svc dev`): a second emulator on it
   * is refused (CONTRACT §8). Without it the file is opened unclaimed (tools, tests).
   */
  claimAs?: string;
}

export interface OpenedStore extends Store {
  /** The claim, when one was asked for; released by close(). */
  readonly claim: Claim | null;
}

/**
 * Opens (creating when needed) and migrates the database. A file is first checked without being
 * changed (CONTRACT §8 "Not our database"), then claimed, then created mode 0600 when missing:
 * SQLite gives its WAL and shared-memory files the main file's mode, and it holds webhook secrets.
 */
export async function openStore({ file, claimAs }: OpenStoreOptions): Promise<OpenedStore> {
  if (file === ':memory:') return openConnection(openMemoryDatabase(), file, null);
  file = path.resolve(file);
  const state = checkDatabaseFile(file);
  if (state === 'missing') fs.mkdirSync(path.dirname(file), { recursive: true });
  const claim = claimAs ? claimDatabase(file, claimAs) : null;
  try {
    if (state === 'missing') createPrivate(file);
    else makePrivate(file);
    return await openConnection(openSqlite(file, { fileMustExist: true }), file, claim);
  } catch (error) {
    claim?.release();
    if (error instanceof DatabaseFileError) throw error;
    if (error instanceof UnknownMigrationsError) throw new DatabaseFileError(file, `was made by a newer version of svc (${error.message})`);
    if (error instanceof MigrationError) {
      throw new DatabaseFileError(
        file,
        `could not be migrated: ${error.message} (it was left as it was before that migration; a database an earlier svc left half-migrated must be moved away)`,
        'database_migration_failed',
      );
    }
    throw new DatabaseFileError(file, describeSqliteFailure(error));
  }
}

async function openConnection(sqlite: BetterSqlite3.Database, file: string, claim: Claim | null): Promise<OpenedStore> {
  try {
    if (file !== ':memory:') sqlite.pragma('journal_mode = WAL');
    // NORMAL is durable against a killed process in WAL mode (the log is in the OS already);
    // only a power loss can take the last transactions, which an emulator can live with.
    // One exec, not a pragma() each: no statement objects built in JavaScript (see `background` below).
    sqlite.exec(`PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = ${LOCK_WAIT_MS}`);
    await migrate(sqlite);
    await loadQueryBuilder();
  } catch (error) {
    sqlite.close();
    throw error;
  }

  const health = new StorageHealth();
  // One transaction wrapper for every call: `sqlite.transaction(fn)` builds a new wrapper (and its
  // deferred/immediate/exclusive variants) each time, which showed in profiles of the create path.
  const inTransaction = sqlite.transaction((fn: () => unknown) => fn());
  const immediate = inTransaction.immediate;
  // Switching the wait off and on around background work. Not with statements prepared once:
  // SQLite runs `PRAGMA busy_timeout = N` when it prepares it, and running the prepared statement
  // again changes nothing, so the second one prepared (the wait) stayed in force and "no wait"
  // blocked the event loop for 5 s (store-db.test.ts). `exec()` prepares it each time too, and costs
  // ~1.4 µs for the pair where `pragma()` (a statement object and its rows built in JS) cost ~25: it
  // runs around every group commit, and showed as 4% of the emulator's CPU in a fixtures profile.
  let backgroundDepth = 0;
  const background = <T>(fn: () => T): T => {
    if (backgroundDepth++ === 0) sqlite.exec('PRAGMA busy_timeout = 0');
    try {
      return fn();
    } finally {
      if (--backgroundDepth === 0 && sqlite.open) sqlite.exec(`PRAGMA busy_timeout = ${LOCK_WAIT_MS}`);
    }
  };
  return {
    sqlite,
    file,
    health,
    claim,
    tx: <T>(fn: () => T): T => {
      const outer = !sqlite.inTransaction;
      try {
        const result = immediate(fn) as T;
        if (outer) health.committed();
        return result;
      } catch (error) {
        health.failed(error);
        throw error;
      }
    },
    batch: groupCommit(sqlite, { noWait: background, health, waitMs: LOCK_WAIT_MS }),
    background,
    close: () => {
      if (sqlite.open) sqlite.close();
      claim?.release();
    },
  };
}

/**
 * Databases made by earlier releases were created with the umask's mode (often 0644): readable by
 * every local user, webhook secrets included. Tighten them, and their log files, to 0600.
 */
function makePrivate(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      const mode = fs.statSync(f).mode & 0o777;
      if (mode & 0o077) fs.chmodSync(f, mode & 0o700);
    } catch {
      // Missing (no log yet), or not ours to change: SQLite reports what matters when it opens.
    }
  }
}

/** Creates the file empty with mode 0600 if it does not exist (never opens an existing one). */
function createPrivate(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw new DatabaseFileError(file, `cannot be created (${errorCode(error)})`);
  }
}
