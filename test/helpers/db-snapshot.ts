import { internalsOf } from '../../src/server/internals.js';
import type { TestEmulator } from './emulator.js';

/**
 * Every table's full contents, in a stable order, on either engine (through `emu.query`): what a
 * refused request must leave as it was. Rows are compared as JSON, sorted in JS, so that the order
 * does not depend on an engine's scan order or on a table's key.
 */
export async function snapshot(emu: TestEmulator): Promise<string> {
  const tables = (await emu.query(onPostgres(emu) ? PG_TABLES : SQLITE_TABLES)) as { name: string }[];
  const dump: [string, string[]][] = [];
  for (const { name } of tables) {
    const rows = await emu.query(`SELECT * FROM "${name}"`);
    dump.push([name, rows.map((row) => JSON.stringify(row, bigints)).sort()]);
  }
  return JSON.stringify(dump);
}

/**
 * A value that changes whenever the database may have been written: SQLite's `total_changes()` on
 * the emulator's one connection; on PostgreSQL the current snapshot (`xmin:xmax:in-progress ids`):
 * equal snapshots have the same transactions committed, and every write is a transaction's. That
 * counter is the whole server's, so other tests' writes move it too: then the caller only snapshots
 * again. Equal marks mean no write in between, on both engines.
 */
export async function writeMark(emu: TestEmulator): Promise<string> {
  const sql = onPostgres(emu) ? 'SELECT pg_current_snapshot()::text AS n' : 'SELECT total_changes() AS n';
  const [row] = await emu.query(sql);
  return String(row?.n);
}

const SQLITE_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name";
// Not the request journal's table: it records every API request, refused ones too (CONTRACT §9), as
// SQLite's journal does in memory, where no snapshot of the file sees it.
const PG_TABLES =
  "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'request_journal' ORDER BY 1";

/** The emulator runs on PostgreSQL when it has no SQLite store (src/server/internals.ts). */
const onPostgres = (emu: TestEmulator): boolean => internalsOf(emu).store === null;

const bigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value);
