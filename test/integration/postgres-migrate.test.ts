import { Kysely, type Migration, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATION_TABLE, migrate, UnknownMigrationsError } from '../../src/store/migrate.js';
import { ForeignDatabaseError, migratePostgres, SVC_MARKER } from '../../src/store/postgres/migrate.js';
import { postgresMigrations } from '../../src/store/postgres/migrations/index.js';
import { openPostgresDb } from '../../src/store/postgres/open.js';
import { openSqlite } from '../../src/store/sqlite.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';

// PostgreSQL's migrations (src/store/postgres/): the same tables, columns and uniqueness as SQLite's,
// applied once however many replicas start together, and nothing changed in a database that is not
// svc's or was made by a newer svc.
const server: PostgresServer = await startPostgres();

const opened: Kysely<any>[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()));
});

async function freshDatabase(): Promise<Kysely<any>> {
  return open(await server.createDatabase());
}
function open(url: string): Kysely<any> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => {}); // an idle connection the server ends (its stop after the file) is not a failure
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  opened.push(db);
  return db;
}

/** Every table with its columns and types, every index, the marker and the records: what "unchanged" compares. */
async function catalog(db: Kysely<any>) {
  const { rows } = await sql`
    SELECT c.relname, c.relkind, obj_description(c.oid, 'pg_class') AS comment,
      (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY a.attnum)
       FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' ORDER BY c.relname`.execute(db);
  const hasRecords = rows.some((r: any) => r.relname === MIGRATION_TABLE);
  const records = hasRecords ? await db.selectFrom(MIGRATION_TABLE).selectAll().orderBy('name').execute() : [];
  return { rows, records };
}

/** table → its columns, and the column lists of its unique indexes (primary keys included). */
async function pgShape(db: Kysely<any>) {
  const columns = await sql<{ t: string; c: string }>`
    SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = 'public' ORDER BY t, ordinal_position`.execute(db);
  const unique = await sql<{ u: string }>`
    SELECT t.relname || '(' || string_agg(a.attname, ',' ORDER BY k.ord) || ')' AS u
    FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
    WHERE n.nspname = 'public' AND i.indisunique GROUP BY i.indexrelid, t.relname`.execute(db);
  const indexes = await sql<{ name: string }>`
    SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public'
    AND indexname NOT IN (SELECT conname FROM pg_constraint) ORDER BY indexname`.execute(db);
  return shape(
    columns.rows.map((r) => [r.t, r.c]),
    unique.rows.map((r) => r.u),
    indexes.rows.map((r) => r.name),
  );
}

async function sqliteShape() {
  const db = openSqlite(':memory:');
  try {
    await migrate(db);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map(
      (r) => r.name,
    );
    const columns = tables.flatMap((t) => (db.pragma(`table_info("${t}")`) as { name: string }[]).map((c) => [t, c.name] as [string, string]));
    const unique = tables.flatMap((t) =>
      (db.pragma(`index_list("${t}")`) as { name: string; unique: number }[])
        .filter((i) => i.unique)
        .map((i) => `${t}(${(db.pragma(`index_info("${i.name}")`) as { name: string }[]).map((c) => c.name).join(',')})`),
    );
    // Integer primary keys are the rowid, with no index of their own in SQLite: PostgreSQL's is one.
    for (const t of tables) {
      const pk = (db.pragma(`table_info("${t}")`) as { name: string; pk: number; type: string }[]).filter((c) => c.pk);
      if (pk.length === 1 && pk[0]!.type.toUpperCase() === 'INTEGER') unique.push(`${t}(${pk[0]!.name})`);
    }
    const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as { name: string }[]).map((r) => r.name);
    return shape(columns, unique, indexes);
  } finally {
    db.close();
  }
}

function shape(columns: [string, string][], unique: string[], indexes: string[]) {
  const byTable: Record<string, string[]> = {};
  for (const [t, c] of columns) (byTable[t] ??= []).push(c);
  for (const t of Object.keys(byTable)) byTable[t]!.sort();
  return { tables: byTable, unique: [...unique].sort(), indexes: [...indexes].sort() };
}

describe('PostgreSQL migrations', () => {
  it('create, on a fresh database, the tables, columns, unique constraints and indexes SQLite’s do', async () => {
    const db = await freshDatabase();
    expect(await migratePostgres(db)).toEqual(Object.keys(postgresMigrations));
    const [actual, expected] = [await pgShape(db), await sqliteShape()];
    // `snapshots` (0002-snapshots) is PostgreSQL's alone: named snapshots live in the database so that
    // every replica sees them, where SQLite keeps files beside the database. No snapshot copies it.
    expect(actual.tables.snapshots).toEqual(['created_at', 'data', 'name', 'size', 'taken_at']);
    expect(actual.unique).toContain('snapshots(name)');
    delete actual.tables.snapshots;
    actual.unique = actual.unique.filter((u) => u !== 'snapshots(name)');
    // `listener_streams` and `listener_results` (0004-listener-streams) too: which replica holds which
    // `svc webhook listen` stream, and results posted to another replica; one SQLite process keeps
    // them in memory. No snapshot copies them, no reset empties them.
    expect(actual.tables.listener_streams).toEqual(['environment', 'lease_until', 'partner_id', 'replica_id']);
    expect(actual.tables.listener_results).toEqual(['created_at', 'environment', 'partner_id', 'replica_id', 'request_id', 'result']);
    const listenerOnly = ['listener_streams(replica_id,partner_id,environment)', 'listener_results(request_id)'];
    expect(actual.unique).toEqual(expect.arrayContaining(listenerOnly));
    expect(actual.indexes).toContain('listener_streams_listener');
    delete actual.tables.listener_streams;
    delete actual.tables.listener_results;
    actual.unique = actual.unique.filter((u) => !listenerOnly.includes(u));
    actual.indexes = actual.indexes.filter((i) => i !== 'listener_streams_listener');
    // `request_journal` (0005-request-journal) too: the journal every replica shares, where SQLite's
    // one process keeps a ring in memory. A reset keeps it, and no snapshot copies it.
    expect(actual.tables.request_journal).toEqual(['entry', 'from_dashboard', 'id', 'method', 'path', 'replica', 'seq', 'status']);
    expect(actual.unique).toContain('request_journal(seq)');
    expect(actual.indexes).toContain('request_journal_id');
    delete actual.tables.request_journal;
    actual.unique = actual.unique.filter((u) => u !== 'request_journal(seq)');
    actual.indexes = actual.indexes.filter((i) => i !== 'request_journal_id');
    // `notify_key` (0007-notify-key): the key replicas sign their change notifications with; one row,
    // which no snapshot copies (a key leaves the database with no file).
    expect(actual.tables.notify_key).toEqual(['key', 'one']);
    expect(actual.unique).toContain('notify_key(one)');
    delete actual.tables.notify_key;
    actual.unique = actual.unique.filter((u) => u !== 'notify_key(one)');
    expect(actual.tables).toEqual(expected.tables);
    expect(actual.unique).toEqual(expected.unique);
    expect(actual.indexes).toEqual(expected.indexes);
    // Exact types where SQLite's affinity would hide a mistake: money as text, times as bigint ms.
    const types = await sql<{ c: string; t: string }>`
      SELECT table_name || '.' || column_name AS c, data_type AS t FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name || '.' || column_name IN
        ('invoices.amount', 'invoices.amount_received', 'payments.amount', 'invoices.created_at', 'payments.network_id', 'deliveries.next_attempt_at')`.execute(
      db,
    );
    expect(Object.fromEntries(types.rows.map((r) => [r.c, r.t]))).toEqual({
      'invoices.amount': 'text',
      'invoices.amount_received': 'text',
      'payments.amount': 'text',
      'invoices.created_at': 'bigint',
      'payments.network_id': 'bigint',
      'deliveries.next_attempt_at': 'bigint',
    });
    const { records, rows } = await catalog(db);
    expect(records.map((r) => r.name)).toEqual(Object.keys(postgresMigrations));
    expect(rows.find((r: any) => r.relname === MIGRATION_TABLE)).toMatchObject({ comment: SVC_MARKER });
  });

  it('do nothing the second time', async () => {
    const db = await freshDatabase();
    await migratePostgres(db);
    const before = await catalog(db);
    expect(await migratePostgres(db)).toEqual([]);
    expect(await catalog(db)).toEqual(before);
  });

  it('run once when three connections migrate at the same time', async () => {
    const url = await server.createDatabase();
    const replicas = [open(url), open(url), open(url)];
    const results = await Promise.all(replicas.map((db) => migratePostgres(db)));
    expect(results.filter((r) => r.length > 0)).toEqual([Object.keys(postgresMigrations)]);
    expect((await catalog(replicas[0]!)).records).toHaveLength(Object.keys(postgresMigrations).length);
  });

  it('leave nothing behind when a migration fails', async () => {
    const db = await freshDatabase();
    const failing: Migration = {
      async up(trx) {
        await sql`CREATE TABLE half_done (x int)`.execute(trx);
        throw new Error('boom');
      },
    };
    const migrations = { ...postgresMigrations, '0002-fails': async () => failing };
    await expect(migratePostgres(db, { migrations })).rejects.toThrow(/migration 0002-fails failed: boom/);
    expect((await catalog(db)).rows).toEqual([]);
  });

  it('refuse another application’s database, unchanged', async () => {
    const db = await freshDatabase();
    await sql`CREATE TABLE orders (id int PRIMARY KEY, total numeric)`.execute(db);
    const before = await catalog(db);
    const error = await migratePostgres(db).catch((e) => e);
    expect(error).toBeInstanceOf(ForeignDatabaseError);
    expect(error.message).toBe('is not an svc database (it has tables svc never creates: "orders"); it was left unchanged');
    expect(await catalog(db)).toEqual(before);
  });

  it('refuse another kysely application’s database (its record table is not marked as svc’s), unchanged', async () => {
    const db = await freshDatabase();
    await sql`CREATE TABLE kysely_migration (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(db);
    await sql`INSERT INTO kysely_migration VALUES ('2024-01-01-users', '2024-01-01T00:00:00.000Z')`.execute(db);
    await sql`CREATE TABLE users (id int)`.execute(db);
    const before = await catalog(db);
    await expect(migratePostgres(db)).rejects.toBeInstanceOf(ForeignDatabaseError);
    expect(await catalog(db)).toEqual(before);
  });

  it('refuse a database a newer svc migrated, unchanged', async () => {
    const db = await freshDatabase();
    await migratePostgres(db);
    await db.insertInto(MIGRATION_TABLE).values({ name: '0099-from-the-future', timestamp: '2030-01-01T00:00:00.000Z' }).execute();
    const before = await catalog(db);
    const error = await migratePostgres(db).catch((e) => e);
    expect(error).toBeInstanceOf(UnknownMigrationsError);
    expect(error.names).toEqual(['0099-from-the-future']);
    expect(await catalog(db)).toEqual(before);
  });

  it('refuse, at start, an svc database that lost a table or a column (one line naming it)', async () => {
    // CONTRACT §12 "trust only its own" (issue 40): before, such a database started and answered 500s.
    for (const [damage, named] of [
      // CASCADE: the local chains' transfers refer to payments (the reference goes, the table stays).
      ['DROP TABLE payments CASCADE', /the table "payments" is missing/],
      ['ALTER TABLE invoices DROP COLUMN reference_id', /the table "invoices" lacks the column "reference_id"/],
      ['DROP TABLE request_journal', /the table "request_journal" is missing/],
    ] as const) {
      const url = await server.createDatabase();
      const db = await openPostgresDb({ url });
      await db.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(damage);
      await client.end();
      const refused = openPostgresDb({ url }).then(
        async (opened) => {
          await opened.close();
          return null;
        },
        (error: unknown) => error,
      );
      expect(await refused, damage).toMatchObject({ name: 'UserError', code: 'database_damaged', message: expect.stringMatching(named) });
      expect(String(((await refused) as Error).message).split('\n')).toHaveLength(1);
    }
  });
});
