/**
 * CONTRACT §12 "patient connections" (issue 40): at PostgreSQL's connection limit a request waits (up
 * to 5 s) for a pooled connection before answering 503. Before, a burst of requests that needed more
 * connections than the server would give answered 503 at once (951 of 1,800 in a probe). The limit
 * here is the role's (`CONNECTION LIMIT 4`: the change channel's and three for the pool of ten).
 */
import { describe, expect, it } from 'vitest';
import { ikey, type TestEmulator } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();

describe('at the connection limit', () => {
  it('a burst of requests waits for the pooled connections there are: every one answered, none 503', async () => {
    const role = `limited_${process.pid}`;
    await server.psql(`CREATE ROLE ${role} LOGIN PASSWORD 'limited-secret' CONNECTION LIMIT 4`);
    await server.psql(`CREATE DATABASE ${role} OWNER ${role}`);
    const url = new URL(server.urlFor(role));
    url.username = role;
    url.password = 'limited-secret';
    const [emu] = (await replicas.start(url.href, 1)) as [TestEmulator];
    const key = emu.keys.test.merchantKey;
    const answers = await Promise.all([
      ...Array.from({ length: 30 }, () => emu.call('POST', '/v1/invoices', { key, idempotencyKey: ikey(), body: { amount: '1.00' } })),
      ...Array.from({ length: 30 }, () => emu.call('GET', '/v1/invoices', { key })),
    ]);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s >= 300)).toEqual([]);
    expect((await emu.query('SELECT count(*) AS n FROM invoices'))[0]?.n).toBe(30);
  });
});
