import { sql } from 'kysely';
import { expectedColumns } from '../expected-schema.js';
import type { PgHandle } from './handle.js';

/**
 * The tables only PostgreSQL's migrations make, and their columns (migrations/0002, 0004, 0005, 0007): the
 * others follow SQLite's column for column (0001-initial, 0003), which `expectedColumns` reads.
 */
const OWN_TABLES: Record<string, readonly string[]> = {
  snapshots: ['name', 'taken_at', 'size', 'data', 'created_at'],
  listener_streams: ['replica_id', 'partner_id', 'environment', 'lease_until'],
  listener_results: ['request_id', 'partner_id', 'environment', 'replica_id', 'result', 'created_at'],
  request_journal: ['seq', 'replica', 'id', 'method', 'path', 'status', 'from_dashboard', 'entry'],
  notify_key: ['one', 'key'],
};

/** An svc database whose schema lost a table or a column svc made: it would answer 500s. */
export class DamagedSchemaError extends Error {
  constructor(what: string) {
    super(`has a damaged svc schema (${what}); restore it from a backup, or start on a fresh database`);
  }
}

/**
 * Checks at start, after the migrations, that every table and column svc's migrations make is there
 * (CONTRACT §12 "trust only its own", as SQLite checks its file): a table dropped by hand made every
 * request touching it answer 500. Reads the catalog of the current schema only.
 */
export async function checkPostgresSchema(db: PgHandle): Promise<void> {
  const { rows } = await sql<{ t: string; c: string }>`
    SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema()`.execute(db);
  const actual = new Map<string, Set<string>>();
  for (const { t, c } of rows) {
    let set = actual.get(t);
    if (!set) actual.set(t, (set = new Set()));
    set.add(c);
  }
  const expected = new Map<string, readonly string[]>([...(await expectedColumns()), ...Object.entries(OWN_TABLES)]);
  for (const [table, columns] of expected) {
    const have = actual.get(table);
    // JSON-quoted: names are svc's own, but the message reaches a terminal.
    if (!have) throw new DamagedSchemaError(`the table ${JSON.stringify(table)} is missing`);
    const missing = columns.find((c) => !have.has(c));
    if (missing) throw new DamagedSchemaError(`the table ${JSON.stringify(table)} lacks the column ${JSON.stringify(missing)}`);
  }
}
