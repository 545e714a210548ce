import type BetterSqlite3 from 'better-sqlite3';
import {
  ATTEMPT_TRIGGERS,
  DELIVERY_STATUSES,
  DELIVERY_TARGETS,
  ENVIRONMENTS,
  INTEGRATION_STATUSES,
  INVOICE_EVENT_TYPES,
  INVOICE_STATUSES,
} from '../../contract/enums.js';
import { MIGRATION_TABLE } from '../../store/migrate.js';
import { column, textColumn } from '../../store/row.js';
import { openSqlite } from '../../store/sqlite.js';
import { SnapshotRefused } from './untrusted.js';

/**
 * An imported snapshot file's values held to the API's limits (CONTRACT §8: the file is a
 * stranger's), on the file's rows before either engine imports them: a crafted file served a 50 MB
 * `referenceId` as a 52 MB list on PostgreSQL, and a NUL in a text column ended `svc dev` with exit 4
 * there. Text columns must hold text (no NUL, no longer than what the API accepts into them, where
 * the emulator writes them itself a generous bound), JSON columns valid JSON, closed lists one of
 * their values, numbers numbers; custom headers what the API accepts (§5, §8). The first value that
 * is not refuses the file: one line naming the table, the column and why (`svc dev`: exit 1).
 *
 * Engine-neutral: the PostgreSQL import reads the same file (snapshots.ts calls this for both).
 */
export function checkSnapshotValues(file: string): void {
  const db = openSqlite(file, { readonly: true, fileMustExist: true });
  try {
    // The schema was checked to be exactly ours (untrusted.ts); still, no side effects from it.
    db.pragma('trusted_schema = OFF');
    for (const table of tablesOf(db)) {
      const columns = columnsOf(db, table);
      const conditions = columns.map((c) => `(${badValue(table, c)})`);
      if (conditions.length === 0) continue;
      // One scan per table; only a table with a bad value is looked at column by column.
      if (db.prepare(`SELECT 1 FROM ${quote(table)} WHERE ${conditions.join(' OR ')} LIMIT 1`).get() === undefined) continue;
      for (const c of columns) {
        const found = db
          .prepare(`SELECT ${quote(c.name)} AS value FROM ${quote(table)} WHERE ${badValue(table, c)} LIMIT 1`)
          .raw()
          .get();
        if (found) throw new SnapshotRefused(file, `holds a value svc's API would refuse: ${table}.${c.name} ${why(db, table, c)}`);
      }
    }
    checkCustomHeaders(db, file);
  } finally {
    db.close();
  }
}

interface Column {
  name: string;
  text: boolean;
}

/**
 * The longest text each column may hold, in characters: the API's limit where a client sets it
 * (lengths of CONTRACT §2–§5's fields), a bound far above what the emulator itself writes elsewhere.
 */
const ID = 64;
const TEXT_LIMITS: Record<string, Record<string, number>> = {
  meta: { key: 255, value: 1024 * 1024 },
  partners: { id: ID, name: 255 },
  api_keys: { hash: 128, kind: 16, environment: 8, partner_id: ID, merchant_id: ID, hint: ID },
  merchants: { id: ID, partner_id: ID, organization_id: ID, external_tenant_id: 255, name: 255, email: 255, network_ids: 4096 },
  invoices: { id: ID, merchant_id: ID, partner_id: ID, amount: 64, amount_received: 64, reference_id: 255, lock_token: 32, addresses: 65_536 },
  webhook_configs: { id: ID, partner_id: ID, url: 2048, secret: 255, custom_headers: 100_000 },
  idempotency_keys: { scope: 128, fingerprint: 128, response: 1024 * 1024 },
  payments: { id: ID, invoice_id: ID, token: 32, amount: 64, tx_hash: 128 },
  events: { id: 128, invoice_id: ID, partner_id: ID, merchant_id: ID, payload: 65_536 },
  deliveries: { id: ID, event_id: 128, invoice_id: ID, merchant_id: ID, partner_id: ID, url: 2048, last_error: 4096, lease_token: 128 },
  delivery_attempts: { delivery_id: ID, url: 2048, response_body: 4096, error: 4096, chaos: 255 },
  listeners: { partner_id: ID, secret: 255, events: 4096, forward_to: 2048 },
};
/** Any text column not listed (a migration's record, a column a later release adds). */
const DEFAULT_LIMIT = 65_536;

/** Columns whose text is JSON the emulator parses when it presents the row. */
const JSON_COLUMNS = new Set(['merchants.network_ids', 'invoices.addresses', 'webhook_configs.custom_headers', 'events.payload', 'listeners.events']);

/** Closed lists (src/contract/enums.ts); `*` applies to every table with that column. */
const CLOSED: Record<string, readonly string[]> = {
  '*.environment': ENVIRONMENTS,
  'api_keys.kind': ['partner', 'merchant'],
  'merchants.integration_status': INTEGRATION_STATUSES,
  'invoices.status': INVOICE_STATUSES,
  'events.type': INVOICE_EVENT_TYPES,
  'deliveries.event_type': INVOICE_EVENT_TYPES,
  'deliveries.status': DELIVERY_STATUSES,
  'deliveries.target': DELIVERY_TARGETS,
  'delivery_attempts.trigger': ATTEMPT_TRIGGERS,
};

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
const limitOf = (table: string, c: string) => TEXT_LIMITS[table]?.[c] ?? DEFAULT_LIMIT;
const closedOf = (table: string, c: string) => CLOSED[`${table}.${c}`] ?? CLOSED[`*.${c}`];

/** The tables of the (checked) file, SQLite's own bookkeeping and the migrations' record left out. */
function tablesOf(db: BetterSqlite3.Database): string[] {
  return db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    .all()
    .map((r) => textColumn(r, 'name'))
    .filter((name) => name !== MIGRATION_TABLE && !name.startsWith('kysely_'));
}

function columnsOf(db: BetterSqlite3.Database, table: string): Column[] {
  return db
    .prepare('SELECT name, type FROM pragma_table_info(?)')
    .all(table)
    .map((r) => ({ name: textColumn(r, 'name'), text: /text|char/i.test(String(column(r, 'type'))) }));
}

/** SQL that is true for a value of `c` the API would not accept (NULLs are the schema's business). */
function badValue(table: string, c: Column): string {
  const col = quote(c.name);
  if (!c.text) return `typeof(${col}) NOT IN ('integer', 'real', 'null')`;
  const parts = [
    `typeof(${col}) NOT IN ('text', 'null')`,
    // A NUL: length() stops at it, so it is looked for in the bytes.
    `instr(CAST(${col} AS BLOB), x'00') > 0`,
    `length(${col}) > ${limitOf(table, c.name)}`,
  ];
  if (JSON_COLUMNS.has(`${table}.${c.name}`)) parts.push(`(${col} IS NOT NULL AND json_valid(${col}) = 0)`);
  const closed = closedOf(table, c.name);
  if (closed) parts.push(`(${col} IS NOT NULL AND ${col} NOT IN (${closed.map(literal).join(', ')}))`);
  return parts.join(' OR ');
}

/** Why the first bad value of `c` is bad, in words. */
function why(db: BetterSqlite3.Database, table: string, c: Column): string {
  const col = quote(c.name);
  const first = (condition: string) => db.prepare(`SELECT 1 FROM ${quote(table)} WHERE ${condition} LIMIT 1`).get() !== undefined;
  if (!c.text) return 'holds something other than a number';
  if (first(`typeof(${col}) NOT IN ('text', 'null')`)) return 'holds something other than text';
  if (first(`instr(CAST(${col} AS BLOB), x'00') > 0`)) return 'holds the character U+0000 (NUL)';
  const limit = limitOf(table, c.name);
  const longest = db
    .prepare(`SELECT max(length(${col})) FROM ${quote(table)}`)
    .pluck()
    .get();
  if (typeof longest === 'number' && longest > limit)
    return `is ${longest.toLocaleString('en-US')} characters long (the limit is ${limit.toLocaleString('en-US')})`;
  const closed = closedOf(table, c.name);
  if (closed && first(`${col} IS NOT NULL AND ${col} NOT IN (${closed.map(literal).join(', ')})`)) return `is not one of ${closed.join(', ')}`;
  return 'is not valid JSON';
}

/** RFC 9110 token; field values as the API takes them (custom-headers.ts, CONTRACT §8). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[\x20-\x7e\t]{0,4096}$/;

/** Custom headers as the API would take them: at most 20, token names, visible ASCII values (§5, §8). */
function checkCustomHeaders(db: BetterSqlite3.Database, file: string): void {
  for (const text of db.prepare('SELECT custom_headers FROM webhook_configs').pluck().all()) {
    const headers: unknown = typeof text === 'string' ? JSON.parse(text) : null;
    const entries = headers !== null && typeof headers === 'object' && !Array.isArray(headers) ? Object.entries(headers) : null;
    const fine =
      entries !== null &&
      entries.length <= 20 &&
      entries.every(([name, value]) => HEADER_NAME.test(name) && typeof value === 'string' && HEADER_VALUE.test(value));
    if (!fine) {
      throw new SnapshotRefused(
        file,
        "holds a value svc's API would refuse: webhook_configs.custom_headers is not at most 20 headers with valid names and values",
      );
    }
  }
}
