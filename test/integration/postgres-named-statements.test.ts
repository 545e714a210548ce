import { type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/postgres/connect.js';
import { deferWrite } from '../../src/store/postgres/deferred-writes.js';
import { MAX_NAMED } from '../../src/store/postgres/named-statements.js';
import { startPgRelay } from '../helpers/pg-relay.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';

// Each connection prepares a statement with parameters once (store/postgres/named-statements.ts):
// what the server keeps, what it does past the bound, and after a table changed shape; and keeps a
// transaction's deferred writes for its next statement.
const server: PostgresServer = await startPostgres();
// One connection: what one statement prepares, the next sees.
const db: Kysely<any> = openPostgres({ url: await server.createDatabase(), maxConnections: 1 });
afterAll(() => db.destroy());

const prepared = async () =>
  (await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements ORDER BY name`.execute(db)).rows;

describe('named statements', () => {
  it('prepares a statement with parameters once per connection; one without runs as a simple query', async () => {
    await sql`CREATE TABLE things (id integer PRIMARY KEY, label text)`.execute(db);
    for (let i = 0; i < 5; i++)
      await db
        .insertInto('things')
        .values({ id: i, label: `t${i}` })
        .execute();
    for (let i = 0; i < 5; i++) expect((await db.selectFrom('things').selectAll().where('id', '=', i).executeTakeFirst())?.label).toBe(`t${i}`);
    const statements = await prepared();
    expect(statements.map((s) => s.statement)).toEqual(['insert into "things" ("id", "label") values ($1, $2)', 'select * from "things" where "id" = $1']);
    // Several statements in one simple query still run (the BEGIN that takes the reset lock is one):
    // as a prepared statement PostgreSQL would refuse it.
    await sql`BEGIN; SELECT pg_advisory_xact_lock_shared(1)`.execute(db);
    const held = await sql<{ n: number }>`SELECT count(*)::integer AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`.execute(db);
    await sql`COMMIT`.execute(db);
    expect(held.rows).toEqual([{ n: 1 }]);
    // Counts of affected rows still reach kysely.
    const updated = await db.updateTable('things').set({ label: 'x' }).where('id', '<', 3).executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(3n);
  });

  it('past the bound, statements run unnamed and the server keeps no more plans', async () => {
    for (let i = 0; i < MAX_NAMED + 20; i++) {
      const row = await sql<{ n: number }>`SELECT ${i}::integer + ${sql.lit(i)} AS n`.execute(db);
      expect(row.rows[0]?.n).toBe(2 * i);
    }
    expect(await prepared()).toHaveLength(MAX_NAMED);
  });

  it('a table that changed shape fails no statement outside a transaction, and one inside a transaction once', async () => {
    const fresh = openPostgres({ url: await server.createDatabase(), maxConnections: 1 });
    try {
      await sql`CREATE TABLE items (id integer PRIMARY KEY)`.execute(fresh);
      await sql`INSERT INTO items VALUES (1)`.execute(fresh);
      const read = () => sql<Record<string, unknown>>`SELECT * FROM items WHERE id = ${1}`.execute(fresh);
      expect((await read()).rows).toEqual([{ id: 1 }]);
      // Another svc's migration, as it were.
      await sql`ALTER TABLE items ADD COLUMN note text DEFAULT 'n'`.execute(fresh);
      expect((await read()).rows).toEqual([{ id: 1, note: 'n' }]);
      await sql`ALTER TABLE items ADD COLUMN more text DEFAULT 'm'`.execute(fresh);
      // Inside a transaction the plan's failure fails the transaction (PostgreSQL aborted it) ...
      await expect(fresh.transaction().execute(async (trx) => sql`SELECT * FROM items WHERE id = ${1}`.execute(trx))).rejects.toMatchObject({ code: '0A000' });
      // ... and the next one plans afresh.
      const again = await fresh.transaction().execute(async (trx) => sql<Record<string, unknown>>`SELECT * FROM items WHERE id = ${1}`.execute(trx));
      expect(again.rows).toEqual([{ id: 1, note: 'n', more: 'm' }]);
    } finally {
      await fresh.destroy();
    }
  });
});

// Writes whose result nobody reads go with the transaction's next statement (deferred-writes.ts).
describe('deferred writes', async () => {
  const relay = await startPgRelay(await server.createDatabase());
  const conn: Kysely<any> = openPostgres({ url: relay.url, maxConnections: 1 });
  afterAll(() => conn.destroy());
  await sql`CREATE TABLE parents (id integer PRIMARY KEY, state text)`.execute(conn);
  await sql`CREATE TABLE children (id integer PRIMARY KEY, parent integer NOT NULL REFERENCES parents (id))`.execute(conn);
  await sql`CREATE TABLE marks (id integer PRIMARY KEY)`.execute(conn);
  const rows = async (table: string) => (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY id`.execute(conn)).rows;
  const clear = () => sql`TRUNCATE parents, children, marks`.execute(conn);

  it('a parent, its child and an unrelated write: one statement inside the transaction, the child’s reference checked', async () => {
    await clear();
    const sent = await relay.count(() =>
      conn.transaction().execute(async (trx) => {
        await deferWrite(trx, trx.insertInto('parents').values({ id: 1, state: 'new' }));
        await deferWrite(trx, trx.insertInto('children').values({ id: 10, parent: 1 }));
        await trx.insertInto('marks').values({ id: 100 }).execute();
      }),
    );
    expect(sent).toHaveLength(3);
    expect(sent[1]).toMatch(/^WITH d0 AS \(insert into "parents".*d1 AS \(insert into "children".*insert into "marks"/);
    expect([await rows('parents'), await rows('children'), await rows('marks')]).toEqual([[{ id: 1, state: 'new' }], [{ id: 10, parent: 1 }], [{ id: 100 }]]);
    // A child whose parent does not exist fails the transaction at the statement that carried it: nothing stays.
    await expect(
      conn.transaction().execute(async (trx) => {
        await deferWrite(trx, trx.insertInto('children').values({ id: 11, parent: 999 }));
        await trx.insertInto('marks').values({ id: 101 }).execute();
      }),
    ).rejects.toMatchObject({ code: '23503' });
    expect(await rows('marks')).toEqual([{ id: 100 }]);
  });

  it('a statement that reads what a kept write wrote sees it, and a write to the same rows follows it', async () => {
    await clear();
    const seen = await conn.transaction().execute(async (trx) => {
      await deferWrite(trx, trx.insertInto('parents').values({ id: 2, state: 'new' }));
      await deferWrite(trx, trx.updateTable('parents').set({ state: 'paid' }).where('id', '=', 2));
      return trx.selectFrom('parents').selectAll().where('id', '=', 2).executeTakeFirst();
    });
    expect(seen).toEqual({ id: 2, state: 'paid' });
    expect(await rows('parents')).toEqual([{ id: 2, state: 'paid' }]);
  });

  it('kept writes go before COMMIT, vanish with a ROLLBACK, and run at once outside a transaction', async () => {
    await clear();
    await conn.transaction().execute(async (trx) => {
      await deferWrite(trx, trx.insertInto('parents').values({ id: 3, state: 'a' }));
      await deferWrite(trx, trx.insertInto('marks').values({ id: 300 }));
    });
    expect([await rows('parents'), await rows('marks')]).toEqual([[{ id: 3, state: 'a' }], [{ id: 300 }]]);
    await expect(
      conn.transaction().execute(async (trx) => {
        await deferWrite(trx, trx.insertInto('parents').values({ id: 4, state: 'b' }));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await rows('parents')).toEqual([{ id: 3, state: 'a' }]);
    const sent = await relay.count(() => deferWrite(conn, conn.insertInto('marks').values({ id: 301 })));
    expect(sent).toEqual(['insert into "marks" ("id") values ($1)']);
    expect(await rows('marks')).toEqual([{ id: 300 }, { id: 301 }]);
  });
});
