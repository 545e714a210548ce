import fs from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { type RawBuilder, sql } from 'kysely';
import { setMetaNow } from '../sqlite/meta-now.js';
import type { HeldBack } from '../sqlite/snapshots.js';
import { openSqlite } from '../sqlite.js';
import { openStore } from '../sqlite/store.js';
import { HOLDING, holdResetLock } from './reset.js';
import { holdsNul } from '../repos/lookups.js';
import { SnapshotValueRefused } from '../snapshot-engine.js';
import type { PgHandle } from './handle.js';
import { IDENTITY_COLUMNS, SNAPSHOT_TABLES, type SnapshotTable } from './tables.js';

/**
 * Snapshots on PostgreSQL (CONTRACT §12 "Snapshots move between backends"). The portable file is
 * SQLite's on both engines: what SQLite's `backupTo` writes (src/store/sqlite/snapshots.ts). An export here
 * builds that file with svc's own SQLite migrations and PostgreSQL's rows; an import is the twin of
 * SQLite's `replaceAllRows`. The file's checks (untrusted.ts) and migrating an older file to this
 * release's schema are the caller's, as on SQLite.
 */

/** The columns of each snapshot table, in order, from our own database's catalog (never from a file). */
async function columnsOf(db: PgHandle): Promise<Map<SnapshotTable, string[]>> {
  const names = SNAPSHOT_TABLES.map((t) => t.name);
  const { rows } = await sql<{ t: string; c: string }>`
    SELECT table_name AS t, column_name AS c FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name IN (${sql.join(names)})
    ORDER BY table_name, ordinal_position`.execute(db);
  const columns = new Map<SnapshotTable, string[]>();
  for (const name of names) {
    const list = rows.filter((r) => r.t === name).map((r) => r.c);
    if (list.length === 0) throw new Error(`svc bug: table ${name} is missing from the PostgreSQL database`);
    columns.set(name, list);
  }
  return columns;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A consistent copy of every table (one REPEATABLE READ, read-only transaction: one point in time,
 * while other replicas keep writing) into a NEW SQLite file at `file`, with `clockKey` set to
 * `clockAt` in its meta as `backupTo` sets it. Unlike `backupTo`, the live database is not written
 * to: the clock entry goes only into the file. Nothing is left at `file` on failure.
 */
export async function exportPostgresSnapshot(db: PgHandle, file: string, clockKey: string, clockAt: number): Promise<void> {
  if (fs.existsSync(file)) throw new Error(`svc bug: the snapshot file ${file} exists already`);
  const store = await openStore({ file });
  let closed = false;
  try {
    const lite = store.sqlite;
    await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        const columns = await columnsOf(trx);
        // One SQLite transaction around every table, spanning the awaits of PostgreSQL's reads:
        // the file is ours alone until it is returned, and one commit is what makes it quick.
        lite.exec('BEGIN');
        for (const table of SNAPSHOT_TABLES) {
          const cols = columns.get(table.name)!;
          const { rows } = await sql<Record<string, unknown>>`
            SELECT ${sql.join(cols.map((c) => sql.ref(c)))} FROM ${sql.table(table.name)}
            ORDER BY ${sql.join(table.key.map((c) => sql.ref(c)))}`.execute(trx);
          const insert = lite.prepare(`INSERT INTO ${quote(table.name)} (${cols.map(quote).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
          for (const row of rows) insert.run(cols.map((c) => row[c]));
        }
        setMetaNow(store.sqlite, clockKey, clockAt);
        lite.exec('COMMIT');
      });
    store.close();
    closed = true;
    // As backupTo: rollback-journal mode, so that opening the file later grows no -wal file.
    const copy = openSqlite(file, { fileMustExist: true });
    try {
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
  } catch (error) {
    if (!closed) store.close();
    for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${file}${suffix}`, { force: true });
    throw error;
  }
}

/** Parameters per INSERT stay far below PostgreSQL's 65,535; a few hundred rows a statement. */
const PARAMETERS_PER_INSERT = 30_000;

/**
 * Every table's rows replaced by the file's, in ONE PostgreSQL transaction: TRUNCATE, then
 * multi-row INSERTs parents first (foreign keys hold row by row), keeping `seq` values (lists keep
 * their order) and moving each identity's sequence past them. Any failure (a row that breaks a
 * constraint, a lost connection) leaves PostgreSQL's rows as they were. `hold` and the answer are
 * `replaceAllRows`'s: deliveries the file left pending or retrying are kept but not scheduled, and
 * the webhook URLs it brought are named (CONTRACT §8). The file must have been checked and migrated
 * to this release's schema (server/snapshots `sameSchema`).
 */
export async function importPostgresSnapshot(db: PgHandle, file: string, hold: boolean): Promise<HeldBack> {
  const lite = openSqlite(file, { readonly: true, fileMustExist: true });
  try {
    // Functions a schema names may not have side effects (as checkSnapshotSchema opens it).
    lite.pragma('trusted_schema = OFF');
    // Not sharing the reset lock, which it holds alone (reset.ts's HOLDING).
    return await db
      .transaction()
      .setIsolationLevel(HOLDING)
      .execute(async (trx) => {
        const columns = await columnsOf(trx);
        // Alone, as a reset is (reset.ts): a TRUNCATE beside creates could deadlock with them.
        await holdResetLock(trx);
        await sql`TRUNCATE ${sql.join(SNAPSHOT_TABLES.map((t) => sql.table(t.name)))}`.execute(trx);
        for (const table of SNAPSHOT_TABLES) await copyTable(trx, lite, file, table.name, columns.get(table.name)!);
        for (const { table, column } of IDENTITY_COLUMNS) {
          // Never backwards: ids handed out before the restore are not handed out again.
          await sql`
          SELECT setval(s.seq, GREATEST((SELECT COALESCE(MAX(${sql.ref(column)}), 0) FROM ${sql.table(table)}), COALESCE(pg_sequence_last_value(s.seq), 0), 1))
          FROM (SELECT pg_get_serial_sequence(${table}, ${column})::regclass AS seq) s`.execute(trx);
        }
        if (!hold) return { webhookUrls: [], heldDeliveries: 0 };
        // COLLATE "C": byte order, as SQLite's, whatever the database's locale.
        const urls = await sql<{ url: string }>`
        SELECT url FROM (SELECT url FROM webhook_configs
          UNION SELECT url FROM deliveries WHERE status IN ('pending', 'retrying') AND target = 'webhook') AS brought
        ORDER BY url COLLATE "C" LIMIT 50`.execute(trx);
        const held = await sql`UPDATE deliveries SET next_attempt_at = NULL, in_flight = 0 WHERE status IN ('pending', 'retrying')`.execute(trx);
        return { webhookUrls: urls.rows.map((r) => r.url), heldDeliveries: Number(held.numAffectedRows ?? 0n) };
      });
  } finally {
    lite.close();
  }
}

/** One table's rows from the file into PostgreSQL, a batch of rows per INSERT, read as it goes. */
async function copyTable(trx: PgHandle, lite: BetterSqlite3.Database, file: string, table: SnapshotTable, cols: string[]): Promise<void> {
  // The column names are our own database's; the file's schema was checked to be exactly ours.
  const read = lite
    .prepare(`SELECT ${cols.map(quote).join(', ')} FROM ${quote(table)}`)
    .raw(true)
    .safeIntegers(true);
  const perInsert = Math.max(1, Math.floor(PARAMETERS_PER_INSERT / cols.length));
  const target = sql`${sql.table(table)} (${sql.join(cols.map((c) => sql.ref(c)))})`;
  let batch: RawBuilder<unknown>[] = [];
  const flush = async () => {
    if (batch.length) await sql`INSERT INTO ${target} VALUES ${sql.join(batch)}`.execute(trx);
    batch = [];
  };
  for (const row of read.iterate()) {
    // raw(true): each row is an array of the columns' values.
    if (!Array.isArray(row)) throw new Error(`svc bug: a raw row of ${table} is not an array`);
    batch.push(sql`(${sql.join(row.map((value, i) => portable(value, file, table, cols[i]!)))})`);
    if (batch.length >= perInsert) await flush();
  }
  await flush();
}

/**
 * A value of the file as PostgreSQL takes it. Integers are read as bigints so that one beyond 2^53
 * is refused rather than rounded (svc stores none); a blob is in no column svc writes; nor a NUL.
 */
function portable(value: unknown, file: string, table: string, column: string): unknown {
  if (typeof value === 'bigint') {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new SnapshotValueRefused(file, `holds ${value} in ${table}.${column}, beyond what svc stores exactly (2^53)`);
    }
    return Number(value);
  }
  // SQLite's text may hold U+0000 (a file from a version of svc before it refused one, or made by
  // hand); PostgreSQL's cannot, and its own error would not say where.
  if (typeof value === 'string' && holdsNul(value)) {
    throw new SnapshotValueRefused(file, `holds the character U+0000 (NUL) in ${table}.${column}, which svc never stores`);
  }
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  throw new SnapshotValueRefused(file, `holds a binary value in ${table}.${column}, which svc never stores`);
}
