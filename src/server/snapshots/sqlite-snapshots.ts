import fs from 'node:fs';
import { getMeta, isFiniteNumber } from '../../store/repos/meta.js';
import { backupTo, outsideTransaction, recordedMigrations, replaceAllRows } from '../../store/snapshots.js';
import type { Store } from '../../store/store.js';
import type { NamedSnapshots, SnapshotEngine } from './engine.js';
import { SnapshotFiles } from './files.js';
import { memorySnapshots } from './memory-snapshots.js';

/**
 * Snapshots on SQLite: the online backup API for a copy, a restore in one transaction on the
 * emulator's own connection (src/store/snapshots.ts), named snapshots as files beside the database,
 * or in memory for an in-memory database (memory-snapshots.ts).
 */
export function sqliteSnapshotEngine(store: Store): SnapshotEngine {
  return {
    copyTo: (file, clockKey, now) => backupTo(store, file, clockKey, now),
    migrations: () => recordedMigrations(store),
    replaceAll: async (file, hold, clockKey, around) => {
      await outsideTransaction(store);
      // In the same turn as the copy: no attempt of the discarded state can start in between; the
      // clock is put back in that turn too, so no request sees the new rows at the old time.
      around.before();
      const held = replaceAllRows(store, file, hold);
      around.after(getMeta(store, clockKey, isFiniteNumber));
      return held;
    },
    named: store.file === ':memory:' ? memorySnapshots() : namedFiles(SnapshotFiles.for(store.file)),
  };
}

function namedFiles(files: SnapshotFiles): NamedSnapshots {
  return {
    save: async (name, write) => {
      const scratch = files.scratch();
      const now = await write(scratch);
      try {
        return files.commit(scratch, name, now);
      } catch (error) {
        fs.rmSync(scratch, { force: true });
        throw error;
      }
    },
    open: async (name) => {
      const info = files.info(name);
      const file = files.file(name);
      return info && { info, file, shownAs: file, dispose: () => {} };
    },
    list: async () => files.list(),
    listNow: () => files.list(),
    delete: async (name) => files.delete(name),
    deleteNow: (name) => files.delete(name),
    close: () => {},
  };
}
