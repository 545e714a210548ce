import path from 'node:path';
import type { SnapshotInfo } from '../../contract/testing-types.js';
import { isFiniteNumber } from '../db.js';
import { migrations } from '../migrations/index.js';
import type { PostgresStoreDb } from './engine.js';
import { deleteNamedSnapshot, fetchNamedSnapshot, listNamedSnapshots, saveNamedSnapshot } from './named-snapshots.js';
import { exportPostgresSnapshot, importPostgresSnapshot } from './snapshots.js';
import { openSqlite } from '../sqlite.js';
import type { NamedSnapshots, SnapshotEngine } from '../snapshot-engine.js';
import { tempFolder } from '../temp-folder.js';

/**
 * Snapshots on PostgreSQL (CONTRACT §12): the portable SQLite file written from and imported into
 * the database (src/store/postgres/snapshots.ts), named snapshots as rows every replica shares
 * (named-snapshots.ts). Loaded only on PostgreSQL (start.ts): SQLite's start never loads the driver.
 * `onError`: a failure nobody awaits (the in-process synchronous delete's) is reported there.
 */
export async function postgresSnapshotEngine(db: PostgresStoreDb, onError: (message: string) => void): Promise<SnapshotEngine> {
  const handle = db.handle;
  return {
    copyTo: (file, clockKey, now) => exportPostgresSnapshot(handle, file, clockKey, now),
    // No SQLite store to ask: this release's list, which the PostgreSQL schema matches once migrated.
    migrations: () => Object.keys(migrations),
    replaceAll: async (file, hold, clockKey, around) => {
      const clockAt = clockOf(file, clockKey);
      around.before();
      const held = await importPostgresSnapshot(handle, file, hold);
      // Its rows replaced ours past the repositories: what this replica cached is stale (the others
      // forget theirs at the version `restored()` replaces).
      db.cache.forget();
      // The import spans many turns: an attempt claimed from the old rows before its TRUNCATE locked
      // them is abandoned too (`restored()` then releases what is in flight, so nothing is lost).
      around.before();
      around.after(clockAt);
      return held;
    },
    named: await namedRows(db, onError),
  };
}

/** The file's entry `key` of its meta (a number), read before its rows replace ours. */
function clockOf(file: string, key: string): number | undefined {
  const lite = openSqlite(file, { readonly: true, fileMustExist: true });
  try {
    // As every open of a checked file: functions its schema names may not have side effects.
    lite.pragma('trusted_schema = OFF');
    const row = lite.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key);
    if (typeof row !== 'string') return undefined;
    const value: unknown = JSON.parse(row);
    return isFiniteNumber(value) ? value : undefined;
  } finally {
    lite.close();
  }
}

const newestFirst = (a: SnapshotInfo, b: SnapshotInfo) => b.createdAt.localeCompare(a.createdAt) || a.name.localeCompare(b.name);

/**
 * Named snapshots in the `snapshots` table. `listNow`/`deleteNow` (the in-process API, synchronous)
 * serve the list this process keeps: loaded here, updated by its own saves and deletes and by every
 * `list()`. A `deleteNow` deletes the row in the background; whatever comes after it here waits for it.
 */
async function namedRows(db: PostgresStoreDb, onError: (message: string) => void): Promise<NamedSnapshots> {
  const handle = db.handle;
  let known = await listNamedSnapshots(handle);
  // The background deletes of `deleteNow`, awaited before anything else reads or writes the table.
  let deleting: Promise<unknown> = Promise.resolve();
  const settled = () => deleting;
  const remember = (info: SnapshotInfo) => {
    known = [...known.filter((k) => k.name !== info.name), info].sort(newestFirst);
  };
  const forget = (name: string) => {
    known = known.filter((k) => k.name !== name);
  };
  return {
    save: async (name, write) => {
      await settled();
      const temp = tempFolder();
      try {
        const file = path.join(temp.dir, 'snapshot.sqlite');
        const now = await write(file);
        const info = await saveNamedSnapshot(handle, name, file, now);
        remember(info);
        return info;
      } finally {
        temp.dispose();
      }
    },
    open: async (name) => {
      await settled();
      const temp = tempFolder();
      try {
        const info = await fetchNamedSnapshot(handle, name, path.join(temp.dir, 'snapshot.sqlite'));
        if (!info) {
          temp.dispose();
          forget(name);
          return null;
        }
        return { info, file: path.join(temp.dir, 'snapshot.sqlite'), shownAs: `${name} (stored in the database)`, dispose: temp.dispose };
      } catch (error) {
        temp.dispose();
        throw error;
      }
    },
    list: async () => {
      await settled();
      known = await listNamedSnapshots(handle);
      return known;
    },
    listNow: () => known,
    delete: async (name) => {
      await settled();
      forget(name);
      return deleteNamedSnapshot(handle, name);
    },
    deleteNow: (name) => {
      if (!known.some((k) => k.name === name)) return false;
      forget(name);
      deleting = deleting.then(() =>
        deleteNamedSnapshot(handle, name).catch((error: unknown) =>
          onError(`snapshot ${name} could not be deleted (${error instanceof Error ? error.message : String(error)})`),
        ),
      );
      return true;
    },
    close: () => {},
  };
}
