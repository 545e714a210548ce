import type BetterSqlite3 from 'better-sqlite3';
import { MIGRATION_TABLE, migrate } from './migrate.js';
import { openSqlite } from './sqlite.js';
import { nullableTextColumn, textColumn } from './row.js';

/** One row of `sqlite_schema`: a table, index, view or trigger. */
export interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/**
 * Tables SQLite itself may add to any database (AUTOINCREMENT, ANALYZE, `PRAGMA optimize`): their
 * definition is SQLite's, they hold no svc data and a restore never reads them.
 */
const SQLITE_OWN = new Set(['sqlite_sequence', 'sqlite_stat1', 'sqlite_stat4']);

/**
 * Objects earlier releases made that this release's migrations do not: kysely's Migrator kept its
 * record in a table created with its own spelling, beside a lock table. Accepted exactly as written.
 */
const LEGACY: SchemaObject[] = [
  {
    type: 'table',
    name: MIGRATION_TABLE,
    tbl_name: MIGRATION_TABLE,
    sql: `CREATE TABLE "${MIGRATION_TABLE}" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null)`,
  },
  {
    type: 'table',
    name: 'kysely_migration_lock',
    tbl_name: 'kysely_migration_lock',
    sql: 'CREATE TABLE "kysely_migration_lock" ("id" varchar(255) not null primary key, "is_locked" integer default 0 not null)',
  },
  { type: 'index', name: 'sqlite_autoindex_kysely_migration_lock_1', tbl_name: 'kysely_migration_lock', sql: null },
];

const key = (o: SchemaObject) => JSON.stringify([o.type, o.name, o.tbl_name, o.sql]);

/** Every object of a database's schema, SQLite's own bookkeeping tables left out. Reads `sqlite_schema` only. */
export function readSchema(db: BetterSqlite3.Database, schema = 'main'): SchemaObject[] {
  // `schema` is one of our own two literals (main, or the name we ATTACH a file under), never a file's.
  if (!/^[a-z]+$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const rows = db
    .prepare(`SELECT type, name, tbl_name, sql FROM "${schema}".sqlite_schema`)
    .all()
    .map(
      (r): SchemaObject => ({
        type: textColumn(r, 'type'),
        name: textColumn(r, 'name'),
        tbl_name: textColumn(r, 'tbl_name'),
        sql: nullableTextColumn(r, 'sql'),
      }),
    );
  return rows.filter((r) => !(r.type === 'table' && SQLITE_OWN.has(r.name)));
}

const built = new Map<string, Promise<SchemaObject[]>>();

/**
 * What svc's migrations create, up to and including `upTo`: built once per process in an in-memory
 * database, so that the check follows the migrations themselves and cannot drift from them.
 */
export function expectedSchema(upTo: string): Promise<SchemaObject[]> {
  let schema = built.get(upTo);
  if (!schema) {
    schema = (async () => {
      const db = openSqlite(':memory:');
      try {
        await migrate(db, { upTo });
        return readSchema(db);
      } finally {
        db.close();
      }
    })();
    built.set(upTo, schema);
  }
  return schema;
}

/**
 * How `actual` differs from `expected`, in a few words naming the first odd objects (empty when it
 * is the same). The legacy objects of kysely's Migrator are accepted in place of, or beside, ours.
 */
export function schemaDifference(actual: SchemaObject[], expected: SchemaObject[]): string {
  const want = new Set(expected.map(key));
  const legacy = new Set(LEGACY.map(key));
  const have = new Set(actual.map(key));
  // kysely's spelling of the record table stands in for ours.
  const recordTable = expected.find((o) => o.type === 'table' && o.name === MIGRATION_TABLE);
  if (recordTable && have.has(key(LEGACY[0]!))) want.delete(key(recordTable));
  const extra = actual.filter((o) => !want.has(key(o)) && !legacy.has(key(o)));
  const missing = expected.filter((o) => want.has(key(o)) && !have.has(key(o)));
  if (extra.length === 0 && missing.length === 0) return '';
  // JSON-quoted and cut short: a stranger's name reaches the terminal only escaped.
  const name = (o: SchemaObject) => `${o.type} ${JSON.stringify(o.name.slice(0, 60))}`;
  const list = (objects: SchemaObject[]) => objects.slice(0, 3).map(name).join(', ') + (objects.length > 3 ? ', …' : '');
  // An object of ours with another definition shows as both: call it changed.
  const changed = extra.filter((o) => missing.some((m) => m.type === o.type && m.name === o.name));
  if (changed.length) return `its ${list(changed)} differs from the one svc creates`;
  if (extra.length) return `it has objects svc never creates (${list(extra)})`;
  return `it lacks objects svc creates (${list(missing)})`;
}

let columns: Promise<Map<string, string[]>> | undefined;

/**
 * The columns of each table svc's (SQLite) migrations create, by table, in order: what another
 * engine whose tables follow SQLite's column for column (PostgreSQL's, postgres/schema-check.ts)
 * checks its own against. Built once per process in an in-memory database.
 */
export function expectedColumns(): Promise<Map<string, string[]>> {
  columns ??= (async () => {
    const db = openSqlite(':memory:');
    try {
      await migrate(db);
      const found = new Map<string, string[]>();
      for (const { name } of readSchema(db).filter((o) => o.type === 'table')) {
        found.set(
          name,
          db
            .prepare('SELECT name FROM pragma_table_info(?)')
            .all(name)
            .map((r) => textColumn(r, 'name')),
        );
      }
      return found;
    } finally {
      db.close();
    }
  })();
  return columns;
}
