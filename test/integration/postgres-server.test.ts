import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';
import { startPostgresServer } from '../helpers/postgres-server.js';

// The throwaway server the PostgreSQL tests stand on: it must really be PostgreSQL, reachable with
// the password it hands out, and do what failure tests ask of it (kill connections, go away, come back).
const server: PostgresServer = await startPostgres();

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {}); // a terminated backend is reported here as well as to the query
  await client.connect();
  return client;
}

describe('the tests’ PostgreSQL server', () => {
  const clients: pg.Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => {})));
  });

  it('accepts the URL it gives, over TCP with its password, and refuses a wrong password', async () => {
    expect(server.url).toMatch(/^postgres:\/\/svc:[0-9a-f]{24}@127\.0\.0\.1:\d+\/svc$/);
    const client = await connect(server.url);
    clients.push(client);
    const { rows } = await client.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version_num']);
    expect(Number(rows[0]!.v)).toBeGreaterThanOrEqual(140000);
    await expect(connect(server.url.replace(server.password, 'wrong'))).rejects.toThrow(/password authentication failed/);
  });

  it('creates databases from a template, each with the template’s tables', async () => {
    const template = await server.createDatabase({ name: 'tpl' });
    const setup = await connect(template);
    await setup.query('CREATE TABLE t (x int)');
    await setup.end();
    const [a, b] = [await server.createDatabase({ template: 'tpl' }), await server.createDatabase({ template: 'tpl' })];
    expect(a).not.toBe(b);
    const client = await connect(b);
    clients.push(client);
    expect((await client.query('SELECT count(*)::int AS n FROM t')).rows[0].n).toBe(0);
    await expect(server.createDatabase({ name: 'x; DROP DATABASE svc' })).rejects.toThrow(/names are/);
  });

  it('terminates client connections, which then fail', async () => {
    const url = await server.createDatabase();
    const client = await connect(url);
    expect(await server.terminateBackends(url.split('/').pop())).toBe(1);
    await expect(client.query('SELECT 1')).rejects.toThrow();
  });

  it('goes away on stopServer() and comes back on the same URL after startServer()', async () => {
    await server.stopServer();
    await expect(connect(server.url)).rejects.toThrow(/ECONNREFUSED/);
    await server.startServer();
    const client = await connect(server.url);
    expect((await client.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    await client.end();
    await server.restart();
    const again = await connect(server.url);
    clients.push(again);
    expect((await again.query('SELECT 2 AS two')).rows[0].two).toBe(2);
  });

  it('keeps every acknowledged commit across a crash (stopServer immediate), as failure tests need', async () => {
    const url = await server.createDatabase();
    const client = await connect(url);
    await client.query('CREATE TABLE acked (n int)');
    for (let n = 1; n <= 20; n++) await client.query('INSERT INTO acked VALUES ($1)', [n]);
    await server.stopServer('immediate');
    await server.startServer();
    const after = await connect(url);
    clients.push(after);
    expect((await after.query('SELECT count(*)::int AS n FROM acked')).rows[0].n).toBe(20);
  });

  it('stop() ends the server and removes its folder', async () => {
    await Promise.all(clients.splice(0).map((c) => c.end().catch(() => {})));
    await server.stop();
    expect(fs.existsSync(server.dir)).toBe(false);
    await expect(connect(server.url)).rejects.toThrow(/ECONNREFUSED/);
    await server.stop();
  });

  it('starts in a folder whose path is too long for a Unix socket (a long test file name)', async () => {
    const dir = path.join(os.tmpdir(), 'a-test-file-with-a-long-descriptive-name-abcdef12', 'pg-cluster');
    const long = await startPostgresServer({ dir, searchableFrom: inject('svcTestRoot') });
    try {
      expect(await long.psql('SELECT 1')).toBe('1');
    } finally {
      await long.stop();
    }
  });
});
