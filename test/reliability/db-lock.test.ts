/**
 * Reliability: another program locks the database (issue 10; CONTRACT §8 "Lock waits").
 *
 * `svc dev` runs as a child process with webhook deliveries under way to a slow receiver; the test
 * then holds `BEGIN IMMEDIATE` on the same file from its own better-sqlite3 connection (what the
 * `sqlite3` shell or a script does), first for longer than the 5 s wait, then for 1.5 s:
 *
 * - a create during the long lock answers 503 `database_busy` with `Retry-After: 1`, and nothing of
 *   it is stored; during the short one it waits and answers 201;
 * - meanwhile health and reads keep answering (the wait does not block the event loop): they come
 *   back before the create's 503;
 * - background work that hits the lock (results of deliveries, claims, the scheduler) reports an
 *   `error` event and tries again: the process never dies, and after the lock every delivery
 *   succeeded and every event reached the receiver.
 */
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver.js';
import { spawnCli, type LiveCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { answered, PlainClient } from './lib/plain-client.js';
import type { ReadyEvent } from './lib/dev-process.js';

const dir = tempDir('svc-db-lock-');
const file = path.join(dir, 'emulator.sqlite');
let cli: LiveCli | undefined;
afterAll(async () => {
  await cli?.stop('SIGKILL');
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Holds the write lock on `file` from another connection for `ms`, then lets it go. */
async function holdLock(ms: number, during: () => Promise<void>): Promise<void> {
  const other = new BetterSqlite3(file);
  other.exec('BEGIN IMMEDIATE');
  // Something written and not committed: the lock is a real writer's, not just a reservation.
  other.prepare("INSERT INTO meta (key, value) VALUES ('outside-writer', '1') ON CONFLICT (key) DO NOTHING").run();
  const released = sleep(ms).then(() => {
    other.exec('ROLLBACK');
    other.close();
  });
  try {
    await during();
  } finally {
    await released;
  }
}

describe('another connection holds the write lock', () => {
  it('creates wait up to 5 s then answer 503, reads and health keep answering, background work survives', async () => {
    const receiver = await startReceiver();
    receiver.respond({ status: 200, delayMs: 300 });
    cli = spawnCli(['dev', '--json', '--port', '0', '--db', file], { cwd: dir });
    const ready = JSON.parse(await cli.waitForLine((l) => l.startsWith('{"type":"ready"'), 20_000)) as ReadyEvent;
    const client = new PlainClient(ready.baseUrl);
    const call = async (method: string, route: string, options: Parameters<PlainClient['call']>[2] = {}) =>
      answered(await client.call(method, route, options), `${method} ${route}`);
    const partner = ready.test.partnerKey;
    const merchant = ready.test.merchantKey;
    const put = await call('PUT', '/v1/partner/webhook', { key: partner, body: { url: `${receiver.url}/hooks`, secret: 'whsec_lock_test_0123456789abcdef' } });
    expect(put.status).toBe(200);

    // Deliveries in flight when the lock comes: their results are written while it is held.
    const created: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await call('POST', '/v1/invoices', { key: merchant, body: { amount: '1.00' }, idempotencyKey: `before-${i}` });
      expect(res.status).toBe(201);
      created.push(res.body.id);
    }
    const someInvoice = created[0]!;

    const order: string[] = [];
    await holdLock(6500, async () => {
      const started = Date.now();
      const create = call('POST', '/v1/invoices', { key: merchant, body: { amount: '2.00' }, idempotencyKey: 'during-long-lock' }).then((reply) => {
        order.push('create');
        return { reply, ms: Date.now() - started };
      });
      await sleep(200);
      const health = await call('GET', '/__emulator/health');
      order.push('health');
      expect(health.status).toBe(200);
      const read = await call('GET', `/v1/invoices/${someInvoice}`, { key: merchant });
      order.push('read');
      expect(read.status).toBe(200);

      const { reply, ms } = await create;
      expect(reply.status).toBe(503);
      expect(reply.body).toEqual({ error: { code: 'database_busy', message: expect.any(String) } });
      expect(reply.headers['retry-after']).toBe('1');
      // It waited for the lock (the 5 s of CONTRACT §8) before giving up.
      expect(ms).toBeGreaterThanOrEqual(4900);
    });
    expect(order).toEqual(['health', 'read', 'create']);
    expect(cli.child.exitCode).toBeNull();

    // Refused means not stored: the same key now creates (201), it does not replay.
    const retried = await call('POST', '/v1/invoices', { key: merchant, body: { amount: '2.00' }, idempotencyKey: 'during-long-lock' });
    expect(retried.status).toBe(201);
    created.push(retried.body.id);

    // A short lock: the create waits for it and succeeds.
    await holdLock(1500, async () => {
      const reply = await call('POST', '/v1/invoices', { key: merchant, body: { amount: '3.00' }, idempotencyKey: 'during-short-lock' });
      expect(reply.status).toBe(201);
      created.push(reply.body.id);
    });

    // Every delivery ends succeeded once the database is free: nothing was lost to the lock.
    await receiver.waitFor(created.length, 30_000);
    const deadline = Date.now() + 30_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      const db = new BetterSqlite3(file, { readonly: true });
      statuses = (db.prepare('SELECT status FROM deliveries').all() as { status: string }[]).map((r) => r.status);
      db.close();
      if (statuses.length === created.length && statuses.every((s) => s === 'succeeded')) break;
      await sleep(200);
    }
    expect(statuses).toHaveLength(created.length);
    expect(new Set(statuses)).toEqual(new Set(['succeeded']));
    const events = cli.lines.filter((l) => l.startsWith('{"type":"error"')).map((l) => JSON.parse(l) as { message: string });
    console.log(`[db-lock] ${events.length} error events while locked, e.g. ${events[0]?.message ?? '(none)'}`);
    expect(events.some((e) => /database is locked/.test(e.message))).toBe(true);
    expect(cli.child.exitCode).toBeNull();
    expect(await cli.stop('SIGINT')).toBe(0);
    await client.close();
    await receiver.close();
  });
});
