import { numberInMeta } from './meta-now.js';
import { backupTo, outsideTransaction, recordedMigrations, replaceAllRows } from './snapshots.js';
import type { Store } from './store.js';
import type { SnapshotEngine } from '../snapshot-engine.js';

/**
 * Snapshots on SQLite: the online backup API for a copy, a restore in one transaction on the
 * emulator's own connection (./snapshots.ts); named snapshots are files beside the database.
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
      around.after(numberInMeta(store.sqlite, clockKey));
      return held;
    },
    // Named snapshots are files beside the database (server/snapshots/named-files.ts).
    named: { besideFile: store.file },
  };
}
