import net from 'node:net';
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/postgres/connect.js';
import { isDatabaseUnavailable } from '../../src/store/postgres/unavailable.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';

// Which failures mean "the database went away" (CONTRACT §12: 503 database_unavailable, reconnect by
// itself), classified from what a real server and pg really throw: a stopped server, a backend
// ended under a transaction, a pool with no connection to give, a server that never answers.
const server: PostgresServer = await startPostgres();

const opened: Kysely<unknown>[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()));
});
function open(url: string, options: { maxConnections?: number; connectTimeoutMs?: number } = {}): Kysely<unknown> {
  const db = openPostgres<unknown>({ url, ...options });
  opened.push(db);
  return db;
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );

describe('isDatabaseUnavailable', () => {
  it('is false for a statement’s own faults: a constraint, a syntax error, a bad value', async () => {
    const db = open(await server.createDatabase());
    await sql`CREATE TABLE t (id int PRIMARY KEY)`.execute(db);
    await sql`INSERT INTO t VALUES (1)`.execute(db);
    const duplicate = await failure(sql`INSERT INTO t VALUES (1)`.execute(db));
    expect(duplicate).toMatchObject({ code: '23505' });
    expect(isDatabaseUnavailable(duplicate)).toBe(false);
    const syntax = await failure(sql`SELEC 1`.execute(db));
    expect(syntax).toMatchObject({ code: '42601' });
    expect(isDatabaseUnavailable(syntax)).toBe(false);
    const badValue = await failure(sql`SELECT 'x'::int`.execute(db));
    expect(isDatabaseUnavailable(badValue)).toBe(false);
    for (const other of [new Error('boom'), null, undefined, 'ECONNREFUSED', { code: 42 }]) expect(isDatabaseUnavailable(other)).toBe(false);
  });

  it('is true for a stopped server, and the same Kysely works again once it is back', async () => {
    const db = open(await server.createDatabase());
    await sql`SELECT 1`.execute(db); // a pooled connection, idle when the server stops
    await server.stopServer();
    let down: unknown;
    try {
      down = await failure(sql`SELECT 1`.execute(db));
    } finally {
      await server.startServer();
    }
    expect(down).toMatchObject({ code: 'ECONNREFUSED' });
    expect(isDatabaseUnavailable(down)).toBe(true);
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows).toEqual([{ one: 1 }]);
  });

  it('is true when an administrator ends a transaction’s backend, for the statement and for the transaction', async () => {
    // Also a crash test: the backend ends while its connection is checked out and between statements,
    // which pg reports as an 'error' event that ended the process until connect.ts listened for it
    // (vitest fails the run on the uncaught error).
    const url = await server.createDatabase();
    const db = open(url);
    let inside: unknown;
    const outside = await failure(
      db.transaction().execute(async (trx) => {
        await sql`SELECT 1`.execute(trx);
        expect(await server.terminateBackends(new URL(url).pathname.slice(1))).toBeGreaterThan(0);
        inside = await failure(sql`SELECT 1`.execute(trx));
        throw inside;
      }),
    );
    expect(isDatabaseUnavailable(inside)).toBe(true);
    expect(isDatabaseUnavailable(outside)).toBe(true);
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows).toEqual([{ one: 1 }]);
  });

  it('is true when the pool has no connection to give within the connect timeout', async () => {
    const db = open(await server.createDatabase(), { maxConnections: 1, connectTimeoutMs: 200 });
    const waited = await db.connection().execute(async (held) => {
      await sql`SELECT 1`.execute(held);
      return failure(sql`SELECT 1`.execute(db));
    });
    expect(waited).toMatchObject({ message: 'timeout exceeded when trying to connect' });
    expect(isDatabaseUnavailable(waited)).toBe(true);
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows).toEqual([{ one: 1 }]);
  });

  it('is true when a server accepts the connection and never answers', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const db = open(`postgres://svc:secret@127.0.0.1:${port}/svc`, { connectTimeoutMs: 200 });
      const timedOut = await failure(sql`SELECT 1`.execute(db));
      expect(timedOut).toMatchObject({ message: 'Connection terminated due to connection timeout' });
      expect(isDatabaseUnavailable(timedOut)).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('is true for SQLSTATE class 08 and the shutdown and too-many-connections states, also as a cause', () => {
    for (const code of ['08006', '08001', '57P01', '57P02', '57P03', '53300', 'EPIPE', 'ECONNRESET', 'ETIMEDOUT']) {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(true);
      expect(isDatabaseUnavailable(new Error('wrapped', { cause: Object.assign(new Error('x'), { code }) })), code).toBe(true);
    }
    expect(isDatabaseUnavailable(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '57014' }))).toBe(false); // query_canceled: a timeout of ours
  });
});
