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
    // The BEGIN goes with the first statement (statement-batch.ts): two round trips in all.
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^begin; WITH d0 AS \(insert into "parents".*d1 AS \(insert into "children".*insert into "marks"/);
    expect(sent[1]).toBe('commit');
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

// A transaction's BEGIN waits for its first statement, and its last kept writes go with its COMMIT:
// several statements, one round trip (statement-batch.ts).
describe('statements sent together', async () => {
  const relay = await startPgRelay(await server.createDatabase());
  // One connection: what a failed round trip leaves on it, the next transaction meets.
  const conn: Kysely<any> = openPostgres({ url: relay.url, maxConnections: 1 });
  afterAll(() => conn.destroy());
  await sql`CREATE TABLE pots (id integer PRIMARY KEY, label text)`.execute(conn);
  const rows = async () => (await sql<Record<string, unknown>>`SELECT * FROM pots ORDER BY id`.execute(conn)).rows;

  it('a transaction of kept writes is one round trip; an empty one sends nothing', async () => {
    const sent = await relay.count(() =>
      conn.transaction().execute(async (trx) => {
        // Each names its row (deferred-writes.ts): they wait together, and go as one insert.
        await deferWrite(trx, trx.insertInto('pots').values({ id: 1, label: 'a' }), '1');
        await deferWrite(trx, trx.insertInto('pots').values({ id: 2, label: 'b' }), '2');
      }),
    );
    expect(sent).toEqual(['begin; insert into "pots" ("id", "label") values ($1, $2), ($3, $4); commit']);
    expect(await rows()).toEqual([
      { id: 1, label: 'a' },
      { id: 2, label: 'b' },
    ]);
    expect(await relay.count(() => conn.transaction().execute(async () => 'nothing'))).toEqual([]);
  });

  it('a failing statement fails its transaction, leaves nothing, and what it skipped is parsed again next time', async () => {
    // A new text after the failing one: its Parse is skipped by the server, so the connection must not count it as prepared.
    const failing = conn.transaction().execute(async (trx) => {
      await deferWrite(trx, trx.insertInto('pots').values({ id: 1, label: 'twice' }));
      await trx.selectFrom('pots').select('label').where('id', '>', 100).execute();
    });
    await expect(failing).rejects.toMatchObject({ code: '23505' });
    const read = await conn.transaction().execute(async (trx) => trx.selectFrom('pots').select('label').where('id', '>', 1).execute());
    expect(read).toEqual([{ label: 'b' }]);
    // The same with the COMMIT as the statement skipped.
    await expect(
      conn.transaction().execute(async (trx) => {
        await deferWrite(trx, trx.insertInto('pots').values({ id: 2, label: 'twice' }));
      }),
    ).rejects.toMatchObject({ code: '23505' });
    await conn.transaction().execute(async (trx) => {
      await deferWrite(trx, trx.insertInto('pots').values({ id: 3, label: 'c' }));
    });
    expect((await rows()).map((r) => r.label)).toEqual(['a', 'b', 'c']);
  });

  it('several commands in one text still go as a simple query, after what waits', async () => {
    const sent = await relay.count(() =>
      conn.transaction().execute(async (trx) => {
        await deferWrite(trx, trx.insertInto('pots').values({ id: 4, label: 'd' }));
        await sql`SAVEPOINT s; SELECT 1`.execute(trx);
        await sql`SAVEPOINT t; SELECT 2`.execute(trx);
      }),
    );
    expect(sent).toEqual(['begin; insert into "pots" ("id", "label") values ($1, $2)', 'SAVEPOINT s; SELECT 1', 'SAVEPOINT t; SELECT 2', 'commit']);
    const alone = await relay.count(() => conn.transaction().execute(async (trx) => sql`SAVEPOINT u; SELECT 3`.execute(trx)));
    expect(alone).toEqual(['begin; SAVEPOINT u; SELECT 3', 'commit']);
    expect((await rows()).map((r) => r.id)).toEqual([1, 2, 3, 4]);
  });

  it("rows come back parsed as the pool's types say (int8 as a number; one beyond 2^53 refused)", async () => {
    const read = (value: string) =>
      conn.transaction().execute(async (trx) => (await sql<{ n: unknown }>`SELECT ${value}::int8 AS n, ${'x'}::text AS t`.execute(trx)).rows);
    expect(await read('5')).toEqual([{ n: 5, t: 'x' }]);
    await expect(read('9007199254740993')).rejects.toThrow(RangeError);
    expect(await read('-7')).toEqual([{ n: -7, t: 'x' }]);
  });
});
