import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../../clock/clock.js';
import { DatabaseFileError } from '../../store/errors.js';
import { readSchema } from '../../store/expected-schema.js';
import { MIGRATION_TABLE, recorded } from '../../store/migrate.js';
import { getMeta, setMeta } from '../../store/repos/meta.js';
import { openSqlite } from '../../store/sqlite.js';
import type { Imported } from './files.js';
import { openStore, type Store } from '../../store/store.js';
import { ApiError } from '../api-error.js';
import { removeTempFolders } from './leftovers.js';
import { SNAPSHOT_NAME, SNAPSHOT_NAME_MESSAGE } from '../../contract/snapshot-name.js';
import type { SnapshotInfo } from '../../contract/testing-types.js';
import { SnapshotFiles, TEMP_PREFIX } from './files.js';
import { checkSnapshotFile, checkSnapshotSchema, SnapshotRefused } from './untrusted.js';

/** The emulator time a snapshot was taken at: a restore puts the clock back there (CONTRACT §9). */
const CLOCK_AT_SAVE = 'snapshot_clock_ms';

export interface SnapshotDeps {
  store: Store;
  clock: Clock;
  /**
   * Quiets the emulator before its data is replaced: every delivery attempt of the state being
   * discarded is abandoned (never sent afterwards, its result not recorded) and listeners let go;
   * nothing is awaited, so a restore is bounded under any load (CONTRACT §8).
   */
  quiesce(): void;
  /** After the data was replaced: caches cleared, defaults checked, due work rescheduled. */
  restored(): void;
}

/** What an imported file brought that the user should see (the `svc dev` banner and ready event). */

export interface Snapshots {
  save(name: string): Promise<SnapshotInfo>;
  restore(name: string): Promise<SnapshotInfo>;
  /**
   * Replaces the state with an exported snapshot file (`svc dev --snapshot`): checked as untrusted,
   * its pending deliveries held until resent. Says what webhook URLs it brought.
   */
  restoreFile(file: string): Promise<Imported>;
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
    throw new ApiError(400, 'validation_failed', SNAPSHOT_NAME_MESSAGE, 'name');
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

  const replaceWith = async (file: string, hold: boolean): Promise<Imported> => {
    const source = await sameSchema(deps.store, file);
    try {
      await outsideTransaction(deps.store);
      // In the same turn as the copy: no attempt of the discarded state can start in between.
      deps.quiesce();
      const imported = copyFrom(deps.store, source.file, hold);
      const at = getMeta<number>(deps.store, CLOCK_AT_SAVE);
      if (at !== undefined) {
        if (deps.clock.jump) deps.clock.jump(at);
        else deps.clock.set(at);
      }
      deps.restored();
      return imported;
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
        try {
          await replaceWith(files.file(name), false);
        } catch (error) {
          // A file dropped into the folder is checked like an import; the API answers in its shape.
          if (error instanceof SnapshotRefused || error instanceof DatabaseFileError) throw new ApiError(422, 'snapshot_invalid', error.message);
          throw error;
        }
        return info;
      }),
    restoreFile: (file) =>
      serial(() => {
        removeTempFolders();
        return replaceWith(file, true);
      }),
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
 * The snapshot as a file with this release's schema, checked first to be exactly one svc wrote
 * (`untrusted.ts`): itself when its migrations are ours, else a migrated copy in a private
 * temporary folder (an export from an earlier svc), removed by `dispose()` or, after a kill, by the
 * next start (`leftovers.ts`).
 */
async function sameSchema(store: Store, file: string): Promise<{ file: string; dispose(): void }> {
  checkSnapshotFile(file);
  const theirs = await checkSnapshotSchema(file);
  if (theirs.join() === recorded(store.sqlite).join()) return { file, dispose: () => {} };
  removeTempFolders();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
  const dispose = () => fs.rmSync(dir, { recursive: true, force: true });
  const copy = path.join(dir, 'snapshot.sqlite');
  try {
    fs.copyFileSync(file, copy);
    (await openStore({ file: copy })).close();
  } catch (error) {
    dispose();
    // The error names the temporary copy: name the file the user gave.
    if (error instanceof Error) error.message = error.message.replaceAll(copy, file);
    throw error;
  }
  return { file: copy, dispose };
}

async function outsideTransaction(store: Store): Promise<void> {
  // ATTACH cannot run inside a transaction; a group commit never spans a turn, so one turn is enough.
  while (store.sqlite.inTransaction) await new Promise((resolve) => setImmediate(resolve));
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Every table's rows replaced by the snapshot's, in one transaction (foreign keys checked at commit).
 * The tables are the emulator's own (its `main` schema), quoted here: no name read from the file.
 * `hold`: deliveries the file left pending or retrying are kept but not scheduled (an imported file's
 * past is not sent until the user resends it, CONTRACT §8).
 */
function copyFrom(store: Store, file: string, hold: boolean): Imported {
  const db = store.sqlite;
  // The file's tables were checked to be defined exactly as ours (`untrusted.ts`), columns in the same
  // order, so `SELECT *` is safe, and it keeps SQLite's transfer optimization (a column list turns it off).
  const tables = readSchema(db)
    .filter((o) => o.type === 'table' && !o.name.startsWith(MIGRATION_TABLE))
    .map((o) => quote(o.name));
  db.prepare('ATTACH DATABASE ? AS snapshot').run(file);
  try {
    // The snapshot is a consistent copy of a database with the same schema: its foreign keys hold.
    // Checking them again row by row is what made a restore slow; with them off, SQLite empties a
    // table at once and copies another table's pages whole (its "transfer optimization").
    db.pragma('foreign_keys = OFF');
    return store.tx(() => {
      for (const t of tables) db.prepare(`DELETE FROM main.${t}`).run();
      for (const t of tables) db.prepare(`INSERT INTO main.${t} SELECT * FROM snapshot.${t}`).run();
      if (!hold) return { webhookUrls: [], heldDeliveries: 0 };
      const urls = db
        .prepare(
          "SELECT url FROM main.webhook_configs UNION SELECT url FROM main.deliveries WHERE status IN ('pending', 'retrying') AND target = 'webhook' ORDER BY url LIMIT 50",
        )
        .pluck()
        .all() as string[];
      const held = db.prepare("UPDATE main.deliveries SET next_attempt_at = NULL, in_flight = 0 WHERE status IN ('pending', 'retrying')").run().changes;
      return { webhookUrls: urls, heldDeliveries: held };
    });
  } finally {
    db.pragma('foreign_keys = ON');
    db.prepare('DETACH DATABASE snapshot').run();
  }
}
