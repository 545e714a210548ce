import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Clock } from '../../clock/clock.js';
import { MIGRATION_TABLE } from '../../store/migrate.js';
import { getMeta, setMeta } from '../../store/repos/meta.js';
import { openSqlite } from '../../store/sqlite.js';
import { openStore, type Store } from '../../store/store.js';
import { ApiError } from '../api-error.js';
import { SNAPSHOT_NAME, SnapshotFiles, type SnapshotInfo } from './files.js';

/** The emulator time a snapshot was taken at: a restore puts the clock back there (CONTRACT §9). */
const CLOCK_AT_SAVE = 'snapshot_clock_ms';

export interface SnapshotDeps {
  store: Store;
  clock: Clock;
  /**
   * Quiets the emulator before its data is replaced: ends what listeners hold and waits until no
   * delivery attempt is running and every result is written (of the state being discarded).
   */
  quiesce(): Promise<void>;
  /** After the data was replaced: caches cleared, defaults checked, due work rescheduled. */
  restored(): void;
}

export interface Snapshots {
  save(name: string): Promise<SnapshotInfo>;
  restore(name: string): Promise<SnapshotInfo>;
  /** Replaces the state with an exported snapshot file (`svc dev --snapshot`). */
  restoreFile(file: string): Promise<void>;
  list(): SnapshotInfo[];
  delete(name: string): void;
  /** The snapshot's file, for export. */
  file(name: string): string;
  /**
   * Writes the current state to `file` as an exported snapshot (what `svc snapshot export` writes),
   * whole or not at all: a copy beside it, renamed over it once complete (`--export-on-exit`).
   */
  exportTo(file: string): Promise<void>;
  close(): void;
}

export function checkSnapshotName(name: string): void {
  if (!SNAPSHOT_NAME.test(name)) {
    throw new ApiError(400, 'validation_failed', 'name must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit.', 'name');
  }
}

function notFound(name: string): ApiError {
  return new ApiError(404, 'snapshot_not_found', `No snapshot named ${name}.`);
}

/**
 * Snapshots with SQLite's own mechanisms: the online backup API writes a consistent copy while the
 * emulator keeps serving; a restore ATTACHes the copy and replaces every table's rows in one
 * transaction on the emulator's own connection, so the prepared statements, the claim on the file
 * and every open stream survive it, and a crash mid-restore leaves the state as it was.
 */
export function createSnapshots(deps: SnapshotDeps): Snapshots {
  const files = SnapshotFiles.for(deps.store.file);
  let queue: Promise<unknown> = Promise.resolve();
  // One save or restore at a time: a restore must not copy a snapshot still being written.
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const replaceWith = async (file: string) => {
    const source = await sameSchema(deps.store, file);
    try {
      await deps.quiesce();
      await outsideTransaction(deps.store);
      copyFrom(deps.store, source.file);
      const at = getMeta<number>(deps.store, CLOCK_AT_SAVE);
      if (at !== undefined) {
        if (deps.clock.jump) deps.clock.jump(at);
        else deps.clock.set(at);
      }
      deps.restored();
    } finally {
      source.dispose();
    }
  };

  /** A consistent copy of the state, with the clock it was taken at, to `scratch`; removed on failure. */
  const copyTo = async (scratch: string): Promise<number> => {
    const now = deps.clock.now();
    deps.store.tx(() => setMeta(deps.store, CLOCK_AT_SAVE, now));
    try {
      await deps.store.sqlite.backup(scratch);
      rollbackJournal(scratch);
      return now;
    } catch (error) {
      fs.rmSync(scratch, { force: true });
      throw error;
    }
  };

  return {
    save: (name) =>
      serial(async () => {
        checkSnapshotName(name);
        const scratch = files.scratch();
        const now = await copyTo(scratch);
        try {
          return files.commit(scratch, name, now);
        } catch (error) {
          fs.rmSync(scratch, { force: true });
          throw error;
        }
      }),
    exportTo: (file) =>
      serial(async () => {
        // In the target's folder, so that the rename is atomic (same file system); mode 0600 like
        // every copy of the database (it holds keys and webhook secrets, CONTRACT §8).
        const scratch = path.join(path.dirname(file), `.${path.basename(file)}.partial-${process.pid}`);
        fs.rmSync(scratch, { force: true });
        await copyTo(scratch);
        try {
          fs.chmodSync(scratch, 0o600);
          fs.renameSync(scratch, file);
        } catch (error) {
          fs.rmSync(scratch, { force: true });
          throw error;
        }
      }),
    restore: (name) =>
      serial(async () => {
        const info = SNAPSHOT_NAME.test(name) ? files.info(name) : null;
        if (!info) throw notFound(name);
        await replaceWith(files.file(name));
        return info;
      }),
    restoreFile: (file) => serial(() => replaceWith(file)),
    list: () => files.list(),
    // A name no snapshot can have is simply not found (the path holds it, not a body).
    delete: (name) => {
      if (!SNAPSHOT_NAME.test(name) || !files.delete(name)) throw notFound(name);
    },
    file: (name) => {
      if (!SNAPSHOT_NAME.test(name) || !files.info(name)) throw notFound(name);
      return files.file(name);
    },
    close: () => files.close(),
  };
}

/** A snapshot written from a WAL database says WAL in its header; opened later it would grow -wal files. */
function rollbackJournal(file: string): void {
  const db = openSqlite(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/**
 * The snapshot as a file with this release's schema: itself when its migrations are ours, else a
 * migrated temporary copy (an export from an earlier svc). `openStore` checks that it is an svc
 * database at all and refuses one from a newer release, each in one line naming the file.
 */
async function sameSchema(store: Store, file: string): Promise<{ file: string; dispose(): void }> {
  const ours = migrationNames(store.sqlite);
  let theirs: string[] | null = null;
  try {
    const db = openSqlite(file, { readonly: true, fileMustExist: true });
    try {
      theirs = migrationNames(db);
    } finally {
      db.close();
    }
  } catch {
    theirs = null;
  }
  if (theirs && theirs.join() === ours.join()) return { file, dispose: () => {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-snapshot-'));
  const copy = path.join(dir, 'snapshot.sqlite');
  fs.copyFileSync(file, copy);
  const dispose = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    (await openStore({ file: copy })).close();
  } catch (error) {
    dispose();
    // The error names the temporary copy: name the file the user gave.
    if (error instanceof Error) error.message = error.message.replaceAll(copy, file);
    throw error;
  }
  return { file: copy, dispose };
}

function migrationNames(db: BetterSqlite3.Database): string[] {
  return (db.prepare(`SELECT name FROM ${MIGRATION_TABLE} ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
}

async function outsideTransaction(store: Store): Promise<void> {
  // ATTACH cannot run inside a transaction; a group commit never spans a turn, so one turn is enough.
  while (store.sqlite.inTransaction) await new Promise((resolve) => setImmediate(resolve));
}

/** Every table's rows replaced by the snapshot's, in one transaction (foreign keys checked at commit). */
function copyFrom(store: Store, file: string): void {
  const db = store.sqlite;
  db.prepare('ATTACH DATABASE ? AS snapshot').run(file);
  try {
    const tables = (
      db
        .prepare("SELECT name FROM snapshot.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE ?")
        .all(`${MIGRATION_TABLE}%`) as { name: string }[]
    ).map((r) => r.name);
    // The snapshot is a consistent copy of a database with the same schema: its foreign keys hold.
    // Checking them again row by row is what made a restore slow; with them off, SQLite empties a
    // table at once and copies another table's pages whole (its "transfer optimization").
    db.pragma('foreign_keys = OFF');
    store.tx(() => {
      for (const t of tables) db.prepare(`DELETE FROM main."${t}"`).run();
      for (const t of tables) db.prepare(`INSERT INTO main."${t}" SELECT * FROM snapshot."${t}"`).run();
    });
  } finally {
    db.pragma('foreign_keys = ON');
    db.prepare('DETACH DATABASE snapshot').run();
  }
}
