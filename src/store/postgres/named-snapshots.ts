import fs from 'node:fs';
import { SNAPSHOT_NAME } from '../../contract/snapshot-name.js';
import type { SnapshotInfo } from '../../contract/testing-types.js';
import type { PgHandle } from './handle.js';
import { touched } from './handle.js';

/**
 * Named snapshots on PostgreSQL (CONTRACT §9, §12): rows of the `snapshots` table (migration
 * 0002-snapshots), so that every replica sees the same ones; on SQLite they are files beside the
 * database (server/snapshots/files.ts). A snapshot's bytes are the portable file
 * (exportPostgresSnapshot): restoring one writes it back to a file and imports that.
 */

/** The table, typed here: it is PostgreSQL's alone, so not part of the engines' shared schema.ts. */
interface SnapshotsTable {
  name: string;
  /** Emulator time the snapshot was taken at (ms): listings show and sort by it, as SQLite's file mtimes. */
  taken_at: number;
  size: number;
  data: Buffer;
  /** Wall time the row was written (ms), for whoever reads the table. */
  created_at: number;
}

const withTable = (db: PgHandle) => db.withTables<{ snapshots: SnapshotsTable }>();

function checkName(name: string): void {
  // The server refuses a bad name first (400); this keeps one out of the table whoever calls.
  if (!SNAPSHOT_NAME.test(name)) throw new Error(`svc bug: ${JSON.stringify(name)} is not a snapshot name`);
}

const info = (row: { name: string; taken_at: number; size: number }): SnapshotInfo => ({
  name: row.name,
  createdAt: new Date(row.taken_at).toISOString(),
  bytes: row.size,
});

/**
 * Stores the exported snapshot file `file` under `name`, taken at emulator time `takenAt`,
 * replacing a snapshot of that name (as a save over a file does). One statement: another replica
 * sees the old snapshot or the new one, never a mix.
 */
export async function saveNamedSnapshot(db: PgHandle, name: string, file: string, takenAt: number): Promise<SnapshotInfo> {
  checkName(name);
  const data = await fs.promises.readFile(file);
  const row = { name, taken_at: takenAt, size: data.length, data, created_at: Date.now() };
  await withTable(db)
    .insertInto('snapshots')
    .values(row)
    .onConflict((oc) => oc.column('name').doUpdateSet({ taken_at: row.taken_at, size: row.size, data: row.data, created_at: row.created_at }))
    .execute();
  return info(row);
}

/** Every snapshot, newest first (by the emulator time taken at), then by name; without their bytes. */
export async function listNamedSnapshots(db: PgHandle): Promise<SnapshotInfo[]> {
  const rows = await withTable(db).selectFrom('snapshots').select(['name', 'taken_at', 'size']).orderBy('taken_at', 'desc').orderBy('name').execute();
  return rows.map(info);
}

/** Writes snapshot `name`'s bytes to `toFile` (mode 0600: it holds keys and webhook secrets); null when there is none. */
export async function fetchNamedSnapshot(db: PgHandle, name: string, toFile: string): Promise<SnapshotInfo | null> {
  if (!SNAPSHOT_NAME.test(name)) return null;
  const row = await withTable(db).selectFrom('snapshots').select(['name', 'taken_at', 'size', 'data']).where('name', '=', name).executeTakeFirst();
  if (!row) return null;
  const out = await fs.promises.open(toFile, 'w', 0o600);
  try {
    // The mode applies only to a file open creates: one that existed is made private before the bytes go in.
    await out.chmod(0o600);
    await out.writeFile(row.data);
  } finally {
    await out.close();
  }
  return info(row);
}

/** Deletes snapshot `name`; whether there was one. */
export async function deleteNamedSnapshot(db: PgHandle, name: string): Promise<boolean> {
  if (!SNAPSHOT_NAME.test(name)) return false;
  return touched(await withTable(db).deleteFrom('snapshots').where('name', '=', name).executeTakeFirst()) > 0;
}
