/**
 * CONTRACT §8 on PostgreSQL (issue 40): a lock another session holds on an svc table does not take
 * the sandbox down. Writes give up after 5 s with 503 `database_busy` and `Retry-After`, nothing
 * changed; reads and health keep answering meanwhile, even while more writes wait than the pool has
 * connections. Before, a create answered 201 after the lock's 19 s, and reads and health answered
 * 503 `database_unavailable` once every pooled connection waited on the lock.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ikey, type TestEmulator } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();
const holders: pg.Client[] = [];
afterEach(async () => {
  await Promise.all(holders.splice(0).map((c) => c.end().catch(() => {})));
});

/** Another session holding `lock` on the database at `url` until its client ends. */
async function hold(url: string, lock: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  holders.push(client);
  await client.query('BEGIN');
  await client.query(lock);
  return client;
}

describe('a lock another session holds', () => {
  it('writes give up after 5 s with 503 database_busy; reads and health answer meanwhile', async () => {
    const url = await server.createDatabase();
    const [emu] = (await replicas.start(url, 1)) as [TestEmulator];
    const key = emu.keys.test.merchantKey;
    const before = await emu.call('POST', '/v1/invoices', { key, idempotencyKey: ikey(), body: { amount: '1.00' } });
    expect(before.status).toBe(201);
    // Writes to invoices wait; plain reads of it do not (EXCLUSIVE lets only ACCESS SHARE through).
    const holder = await hold(url, 'LOCK TABLE invoices IN EXCLUSIVE MODE');
    const started = performance.now();
    // More writers than the pool has connections (10).
    const creates = Array.from({ length: 14 }, () => emu.call('POST', '/v1/invoices', { key, idempotencyKey: ikey(), body: { amount: '2.00' } }));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const read = await emu.call('GET', `/v1/invoices/${before.body.id}`, { key });
    const health = await emu.call('GET', '/__emulator/health');
    const answeredIn = performance.now() - started;
    expect(read.status).toBe(200);
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    // Answered while the writes still waited (they give up at 5 s).
    expect(answeredIn).toBeLessThan(4500);
    const answers = await Promise.all(creates);
    const waited = performance.now() - started;
    for (const res of answers) {
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('database_busy');
      expect(res.headers.get('retry-after')).toBe('1');
    }
    // Each gave up after its 5 s (those behind the pool's connections waited for a turn as long).
    expect(waited).toBeLessThan(15_000);
    await holder.query('ROLLBACK');
    // Nothing of them was stored; the next create goes through.
    expect((await emu.query('SELECT count(*) AS n FROM invoices'))[0]?.n).toBe(1);
    expect((await emu.call('POST', '/v1/invoices', { key, idempotencyKey: ikey(), body: { amount: '3.00' } })).status).toBe(201);
  }, 30_000);
});
