import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../clock/clock.js';
import { DatabaseFileError } from '../../store/errors.js';
import type { Imported } from './files.js';
import { ApiError } from '../api-error.js';
import { removeTempFolders } from '../../store/leftovers.js';
import { SNAPSHOT_NAME, SNAPSHOT_NAME_MESSAGE } from '../../contract/snapshot-name.js';
import type { SnapshotInfo } from '../../contract/testing-types.js';
import { type SnapshotEngine, type SnapshotFile, SnapshotValueRefused } from '../../store/snapshot-engine.js';
import { namedFiles } from './named-files.js';
import { preparedFile } from './prepared-file.js';
import { SnapshotRefused } from './untrusted.js';

/** The emulator time a snapshot was taken at: a restore puts the clock back there (CONTRACT §9). */
const CLOCK_AT_SAVE = 'snapshot_clock_ms';

export interface SnapshotDeps {
  /** What differs between the engines: the store kit's half (store/snapshot-engine.ts). */
  engine: SnapshotEngine;
  clock: Clock;
  /**
   * Quiets the emulator before its data is replaced: every delivery attempt of the state being
   * discarded is abandoned (never sent afterwards, its result not recorded) and listeners let go;
   * nothing is awaited, so a restore is bounded under any load (CONTRACT §8).
   */
  quiesce(): void;
  /** After the data was replaced: caches cleared, defaults checked, due work rescheduled. */
  restored(): Promise<void>;
  /** Before a copy is taken: state kept outside the store written into it (the local chains'). */
  beforeSave?(): Promise<void>;
  /** Before the data is replaced: work that writes outside a request stopped (the local chains' watchers). */
  beforeRestore?(): Promise<void>;
  /** The data could not be replaced (nothing changed): what `beforeRestore` stopped goes on. */
  restoreFailed?(): Promise<void>;
}

export interface Snapshots {
  save(name: string): Promise<SnapshotInfo>;
  restore(name: string): Promise<SnapshotInfo>;
  /**
   * Replaces the state with an exported snapshot file (`svc dev --snapshot`): checked as untrusted,
   * its pending deliveries held until resent. Says what webhook URLs it brought.
   */
  restoreFile(file: string): Promise<Imported>;
  /** Every snapshot (on PostgreSQL, every replica's): the control plane's list. */
  list(): Promise<SnapshotInfo[]>;
  /** The in-process `emulator.snapshots()`, synchronous: on PostgreSQL, the list this process keeps. */
  listNow(): SnapshotInfo[];
  delete(name: string): Promise<void>;
  /** The in-process `emulator.deleteSnapshot()`, synchronous (on PostgreSQL, of a snapshot this process knows). */
  deleteNow(name: string): void;
  /** The snapshot's file, for export: `dispose()` once it was read (PostgreSQL's is a temporary copy). */
  open(name: string): Promise<SnapshotFile>;
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
 * Saved states (CONTRACT §9), on either engine: names, one save or restore at a time, the
 * untrusted-file checks, quieting the emulator around a restore, the clock put back. Copying and
 * replacing the rows, and where named snapshots live, are the engine's (`engine.ts`).
 */
export function createSnapshots(deps: SnapshotDeps): Snapshots {
  const { engine } = deps;
  const named = 'besideFile' in engine.named ? namedFiles(engine.named.besideFile) : engine.named;
  let queue: Promise<unknown> = Promise.resolve();
  // One save or restore at a time: a restore must not copy a snapshot still being written.
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const replaceWith = async (file: string, hold: boolean): Promise<Imported> => {
    // An imported file (held back: a stranger's) is prepared on a copy; a named snapshot is read as it is.
    const source = await preparedFile(engine, file, hold);
    try {
      await deps.beforeRestore?.();
      const held = await engine
        .replaceAll(source.file, hold, CLOCK_AT_SAVE, {
          before: deps.quiesce,
          after: (at) => {
            if (at === undefined) return;
            if (deps.clock.jump) deps.clock.jump(at);
            else deps.clock.set(at);
          },
        })
        .catch(async (error: unknown) => {
          await deps.restoreFailed?.();
          throw error;
        });
      await deps.restored();
      return held;
    } finally {
      source.dispose();
    }
  };

  /** A consistent copy of the state, with the clock it was taken at, to `scratch`; removed on failure. */
  const copyTo = async (scratch: string): Promise<number> => {
    const now = deps.clock.now();
    try {
      await deps.beforeSave?.();
      await engine.copyTo(scratch, CLOCK_AT_SAVE, now);
      return now;
    } catch (error) {
      fs.rmSync(scratch, { force: true });
      throw error;
    }
  };

  const found = async (name: string): Promise<SnapshotFile> => {
    const snapshot = SNAPSHOT_NAME.test(name) ? await named.open(name) : null;
    if (!snapshot) throw notFound(name);
    return snapshot;
  };

  return {
    save: (name) =>
      serial(async () => {
        checkSnapshotName(name);
        return named.save(name, copyTo);
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
        const snapshot = await found(name);
        try {
          await replaceWith(snapshot.file, false);
        } catch (error) {
          // A stored file is checked like an import; the API answers in its shape.
          if (error instanceof SnapshotRefused || error instanceof SnapshotValueRefused || error instanceof DatabaseFileError) {
            throw new ApiError(422, 'snapshot_invalid', error.message.replaceAll(snapshot.file, snapshot.shownAs));
          }
          throw error;
        } finally {
          snapshot.dispose();
        }
        return snapshot.info;
      }),
    restoreFile: (file) =>
      serial(() => {
        removeTempFolders();
        return replaceWith(file, true);
      }),
    list: () => named.list(),
    listNow: () => named.listNow(),
    // A name no snapshot can have is simply not found (the path holds it, not a body).
    delete: async (name) => {
      if (!SNAPSHOT_NAME.test(name) || !(await named.delete(name))) throw notFound(name);
    },
    deleteNow: (name) => {
      if (!SNAPSHOT_NAME.test(name) || !named.deleteNow(name)) throw notFound(name);
    },
    open: found,
    close: () => named.close(),
  };
}
