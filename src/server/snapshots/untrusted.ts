import fs from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { errorCode, errorMessage } from '../../domain/caught.js';
import { UserError } from '../../errors.js';
import { expectedSchema, readSchema, schemaDifference } from '../../store/expected-schema.js';
import { describeSqliteFailure } from '../../store/file-check.js';
import { MIGRATION_TABLE } from '../../store/migrate.js';
import { migrations, SVC_APPLICATION_ID } from '../../store/migrations/index.js';
import { column } from '../../store/row.js';
import { openSqlite } from '../../store/sqlite.js';

/**
 * The largest snapshot file accepted (CONTRACT §8). Far above any real emulator state (a 10,000-
 * delivery database is a few MiB), and it refuses a device or a runaway file before it is copied.
 */
export const MAX_SNAPSHOT_BYTES = 1024 ** 3;

/** A snapshot file svc will not restore: one line naming the file and why (exit 1 for `svc dev`). */
export class SnapshotRefused extends UserError {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`snapshot ${file} ${detail}; nothing was changed`, 'snapshot_invalid');
  }
}

/**
 * A regular file of a sane size, checked with stat before anything opens it: opening a named pipe
 * blocks until a writer comes (and ignores Ctrl-C meanwhile), and /dev/zero never ends.
 */
export function checkSnapshotFile(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new SnapshotRefused(file, 'does not exist');
    throw new SnapshotRefused(file, `cannot be read (${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? errorMessage(error))})`);
  }
  if (stat.isDirectory()) throw new SnapshotRefused(file, 'is a folder, not a snapshot file');
  if (!stat.isFile()) throw new SnapshotRefused(file, 'is not a regular file (a pipe, socket or device cannot be a snapshot)');
  if (stat.size === 0) throw new SnapshotRefused(file, 'is empty');
  if (stat.size > MAX_SNAPSHOT_BYTES) throw new SnapshotRefused(file, `is larger than ${MAX_SNAPSHOT_BYTES / 1024 ** 3} GiB, more than any svc snapshot`);
}

/**
 * Checks that an imported file's schema is exactly one svc's migrations create (CONTRACT §8: it is
 * data from a stranger), and returns the migrations it records. Only `sqlite_schema` is read until
 * the record table is known to be ours: a view named like it could run forever, a trigger would run
 * on the first write. Returns the recorded migrations, a prefix of this release's.
 */
export async function checkSnapshotSchema(file: string): Promise<string[]> {
  let db: BetterSqlite3.Database;
  try {
    db = openSqlite(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new SnapshotRefused(file, describeSqliteFailure(error));
  }
  try {
    // Functions a schema names (in a view, a default, an index) may not have side effects.
    db.pragma('trusted_schema = OFF');
    let schema: ReturnType<typeof readSchema>;
    let applicationId: number;
    try {
      schema = readSchema(db);
      applicationId = Number(db.pragma('application_id', { simple: true }));
    } catch (error) {
      throw new SnapshotRefused(file, describeSqliteFailure(error));
    }
    if (applicationId !== SVC_APPLICATION_ID && applicationId !== 0) throw new SnapshotRefused(file, 'is not an svc snapshot (another application_id)');
    const all = Object.keys(migrations);
    // Which definitions of the record table are ours: this release's, or kysely's spelling of it.
    const ours = (await expectedSchema(all.at(-1)!)).find((o) => o.type === 'table' && o.name === MIGRATION_TABLE)!;
    const record = schema.find((o) => o.name === MIGRATION_TABLE);
    const legacy = `CREATE TABLE "${MIGRATION_TABLE}" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null)`;
    if (record?.type !== 'table' || (record.sql !== ours.sql && record.sql !== legacy)) {
      throw new SnapshotRefused(file, 'is not an svc snapshot (it has no record of svc migrations)');
    }
    const names = db
      .prepare(`SELECT name FROM "${MIGRATION_TABLE}" ORDER BY name LIMIT 1000`)
      .all()
      .map((r) => String(column(r, 'name')));
    const unknown = names.filter((n) => !all.includes(n));
    if (unknown.length) throw new SnapshotRefused(file, 'was made by a newer version of svc; upgrade svc');
    if (names.length === 0 || names.join() !== all.slice(0, names.length).join()) {
      throw new SnapshotRefused(file, 'is not an svc snapshot (its migration record has gaps)');
    }
    const difference = schemaDifference(schema, await expectedSchema(names.at(-1)!));
    if (difference) throw new SnapshotRefused(file, `is not a snapshot svc wrote: ${difference}`);
    return names;
  } finally {
    db.close();
  }
}
