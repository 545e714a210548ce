import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createPostgresPool, describePostgresUrl, openPostgres } from '../../src/store/postgres/connect.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';

// How the PostgreSQL store connects: numbers and money come back exact, the pool stays within its
// bound, and the URL it shows has no password.
const server: PostgresServer = await startPostgres();

describe('PostgreSQL connections', () => {
  it('give bigint columns as numbers and text money as sent, and refuse a bigint beyond 2^53', async () => {
    const db = openPostgres<any>({ url: await server.createDatabase() });
    try {
      await sql`CREATE TABLE t (at bigint NOT NULL, amount text NOT NULL)`.execute(db);
      await db.insertInto('t').values({ at: 1_764_150_000_123, amount: '10.000001' }).execute();
      expect(await db.selectFrom('t').selectAll().executeTakeFirst()).toEqual({ at: 1_764_150_000_123, amount: '10.000001' });
      expect((await sql<{ n: unknown }>`SELECT 2494104990::bigint AS n`.execute(db)).rows[0]!.n).toBe(2494104990);
      await expect(sql`SELECT 9007199254740993::bigint AS n`.execute(db)).rejects.toThrow(/beyond what svc stores exactly/);
    } finally {
      await db.destroy();
    }
  });

  it('never open more connections than the bound', async () => {
    const url = await server.createDatabase();
    const database = new URL(url).pathname.slice(1);
    // A holder keeps an advisory lock: the pool's queries wait on it inside the server, so "how many
    // are connected" is read while all of them are still asking, however slow the machine.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock(42)');
    const pool = createPostgresPool({ url, maxConnections: 2 });
    try {
      const queries = Array.from({ length: 5 }, () => pool.query('SELECT pg_advisory_lock_shared(42), pg_advisory_unlock_shared(42)'));
      const waiting = async () =>
        Number(
          await server.psql(`SELECT count(*) FROM pg_stat_activity WHERE datname = '${database}' AND application_name = 'svc' AND wait_event = 'advisory'`),
        );
      for (let i = 0; (await waiting()) < 2; i++) {
        if (i > 600) throw new Error('the pool never had two queries waiting');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(pool.totalCount).toBe(2);
      expect(pool.waitingCount).toBe(3);
      await holder.query('SELECT pg_advisory_unlock(42)');
      await Promise.all(queries);
      expect(Number(await server.psql(`SELECT count(*) FROM pg_stat_activity WHERE datname = '${database}' AND application_name = 'svc'`))).toBe(2);
    } finally {
      await holder.end();
      await pool.end();
    }
  });

  it('survive the server ending their idle connections: reported, no crash, the next query reconnects', async () => {
    const url = await server.createDatabase();
    const lost: Error[] = [];
    const pool = createPostgresPool({ url, maxConnections: 3, onIdleError: (e) => lost.push(e) });
    try {
      await Promise.all(Array.from({ length: 3 }, () => pool.query('SELECT pg_sleep(0.05)')));
      expect(pool.idleCount).toBe(3);
      await server.terminateBackends(new URL(url).pathname.slice(1));
      for (let i = 0; lost.length < 3; i++) {
        if (i > 600) throw new Error(`only ${lost.length} of 3 idle connections were reported lost`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(lost.every((e) => /terminating connection/.test(e.message))).toBe(true);
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('show the URL without its password', () => {
    expect(describePostgresUrl(server.url)).toBe(`postgres://svc@127.0.0.1:${server.port}/svc`);
    expect(describePostgresUrl('postgresql://me:p%40ss@db.example:6543/sandbox?sslmode=require&password=x')).toBe('postgresql://me@db.example:6543/sandbox');
    expect(describePostgresUrl('postgres://me:secret@[not a url')).toBe('postgres://(unparseable URL)');
  });
});
