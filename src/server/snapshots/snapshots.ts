import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../../clock/clock.js';
import { DatabaseFileError } from '../../store/errors.js';
// issue 27: SQLite only (snapshots read the restored file's clock on SQLite's own connection).
import { getMeta, isFiniteNumber } from '../../store/repos/meta.js';
import { backupTo, outsideTransaction, recordedMigrations, replaceAllRows } from '../../store/snapshots.js';
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
  /** issue 27: SQLite only. Snapshots copy and replace the SQLite file's rows on its own connection. */
  store: Store | null;
  clock: Clock;
  /**
   * Quiets the emulator before its data is replaced: every delivery attempt of the state being
   * discarded is abandoned (never sent afterwards, its result not recorded) and listeners let go;
   * nothing is awaited, so a restore is bounded under any load (CONTRACT §8).
   */
  quiesce(): void;
  /** After the data was replaced: caches cleared, defaults checked, due work rescheduled. */
  restored(): Promise<void>;
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
 * Saved states (CONTRACT §9): names, files, one save or restore at a time, the untrusted-file
 * checks, quieting the emulator around a restore. The SQL (a backup, a restore in one transaction
 * on the emulator's own connection) is src/store/snapshots.ts.
 */
export function createSnapshots(deps: SnapshotDeps): Snapshots {
  const store = deps.store;
  if (store === null) return unavailableSnapshots();
  const files = SnapshotFiles.for(store.file);
  let queue: Promise<unknown> = Promise.resolve();
  // One save or restore at a time: a restore must not copy a snapshot still being written.
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const replaceWith = async (file: string, hold: boolean): Promise<Imported> => {
    const source = await sameSchema(store, file);
    try {
      await outsideTransaction(store);
      // In the same turn as the copy: no attempt of the discarded state can start in between.
      deps.quiesce();
      // issue 27: SQLite only (the rows and the clock read in the same turn as the quiesce).
      const imported = replaceAllRows(store, source.file, hold);
      const at = getMeta(store, CLOCK_AT_SAVE, isFiniteNumber);
      if (at !== undefined) {
        if (deps.clock.jump) deps.clock.jump(at);
        else deps.clock.set(at);
      }
      await deps.restored();
      return imported;
    } finally {
      source.dispose();
    }
  };

  /** A consistent copy of the state, with the clock it was taken at, to `scratch`; removed on failure. */
  const copyTo = async (scratch: string): Promise<number> => {
    const now = deps.clock.now();
    try {
      await backupTo(store, scratch, CLOCK_AT_SAVE, now);
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

/**
 * The snapshot as a file with this release's schema, checked first to be exactly one svc wrote
 * (`untrusted.ts`): itself when its migrations are ours, else a migrated copy in a private
 * temporary folder (an export from an earlier svc), removed by `dispose()` or, after a kill, by the
 * next start (`leftovers.ts`).
 */
async function sameSchema(store: Store, file: string): Promise<{ file: string; dispose(): void }> {
  checkSnapshotFile(file);
  const theirs = await checkSnapshotSchema(file);
  if (theirs.join() === recordedMigrations(store).join()) return { file, dispose: () => {} };
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

/** issue 27, in progress: snapshots on PostgreSQL (the named ones in the database). */
function unavailableSnapshots(): Snapshots {
  const refuse = () => Promise.reject(new Error('snapshots are not available on PostgreSQL yet'));
  return {
    save: refuse,
    restore: refuse,
    restoreFile: refuse,
    exportTo: refuse,
    list: () => [],
    delete: (name) => {
      throw notFound(name);
    },
    file: (name) => {
      throw notFound(name);
    },
    close: () => {},
  };
}
