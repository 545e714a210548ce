/**
 * CONTRACT §12: `svc webhook listen` behind a balancer in front of two `svc dev` replicas on one
 * PostgreSQL database, as a team runs it. The built CLI is spawned with the round-robin proxy as its
 * base URL: its stream lands on one replica, its results on either, and every event created through
 * either replica is forwarded to the app once. When the replica holding its stream is SIGKILLed, it
 * reconnects through the balancer to the other and gets what it missed, and the attempt that was in
 * flight on the dead one is taken over after its lease (≤ 30 s).
 */
import { describe, expect, it } from 'vitest';
import { spawnCli, type LiveCli } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { startPostgres } from '../helpers/postgres.js';
import { until } from '../helpers/replicas.js';
import { startRoundRobinProxy } from '../helpers/round-robin-proxy.js';
import { tempDir } from '../helpers/temp-dir.js';

const server = await startPostgres();
const each = perTest();

interface Replica {
  cli: LiveCli;
  url: string;
  partnerKey: string;
  merchantKey: string;
}

/** `svc dev --database <url>` on a free port; its ready event gives its URL and the shared default keys. */
async function replica(database: string): Promise<Replica> {
  const cli = each.track(spawnCli(['dev', '--port', '0', '--json', '--database', database], { cwd: tempDir() }));
  const ready = JSON.parse(await cli.waitForLine(() => true, 30_000));
  return { cli, url: ready.baseUrl, partnerKey: ready.test.partnerKey, merchantKey: ready.test.merchantKey };
}

async function newInvoice(through: Replica): Promise<string> {
  const res = await request(through.url, 'POST', '/v1/invoices', { key: through.merchantKey, body: { amount: '1.00' }, idempotencyKey: ikey() });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** The envelope ids the app received, in order. */
const receivedIds = (rx: { requests: { rawBody: string }[] }) => rx.requests.map((r) => JSON.parse(r.rawBody).id as string);

describe('svc webhook listen behind a balancer over two replicas', () => {
  it('forwards every event created through either replica once', async () => {
    const database = await server.createDatabase();
    const a = await replica(database);
    const b = await replica(database);
    const proxy = await startRoundRobinProxy([a.url, b.url]);
    each.defer(() => proxy.stop());
    const rx = await each.receiver();
    const listen = each.track(
      spawnCli(['webhook', 'listen', '--forward-to', `${rx.url}/hooks`], {
        cwd: tempDir(),
        env: { SVC_BASE_URL: proxy.url, SVC_PARTNER_KEY: a.partnerKey },
      }),
    );
    await listen.waitForLine((l) => l.startsWith('Ready!'), 30_000);
    const created: string[] = [];
    for (let i = 0; i < 10; i++) created.push(`${await newInvoice(i % 2 === 0 ? a : b)}-1`);
    await rx.waitFor(10, 30_000);
    expect(receivedIds(rx).sort()).toEqual(created.sort());
    // Every delivery succeeded at its first attempt: none went to the replica without the stream.
    await until(
      'every listener delivery to succeed',
      async () => {
        const res = await request(a.url, 'GET', '/v1/partner/webhook/deliveries?limit=100', { key: a.partnerKey });
        const mine = (res.body.data as { url: string; status: string; attemptCount: number }[]).filter((d) => d.url === `${rx.url}/hooks`);
        return mine.length === 10 && mine.every((d) => d.status === 'succeeded' && d.attemptCount === 1);
      },
      15_000,
    );
    expect(rx.requests).toHaveLength(10);
  });

  it('after the replica holding the stream is SIGKILLed, listen reconnects through the balancer and gets what it missed', async () => {
    const database = await server.createDatabase();
    const a = await replica(database);
    const b = await replica(database);
    // The stream lands on A: the balancer has A alone until listen is ready, then both.
    const proxy = await startRoundRobinProxy([a.url]);
    each.defer(() => proxy.stop());
    const rx = await each.receiver();
    const listen = each.track(
      spawnCli(['webhook', 'listen', '--forward-to', `${rx.url}/hooks`], {
        cwd: tempDir(),
        env: { SVC_BASE_URL: proxy.url, SVC_PARTNER_KEY: a.partnerKey },
      }),
    );
    await listen.waitForLine((l) => l.startsWith('Ready!'), 30_000);
    proxy.upstreams.push(b.url);

    // One attempt in flight on A when it dies: the app holds the first request, and answers later ones.
    rx.respond((_req, n) => (n === 1 ? 'hang' : { status: 200 }));
    const inFlight = `${await newInvoice(b)}-1`;
    await rx.waitFor(1, 15_000);
    a.cli.child.kill('SIGKILL');
    await a.cli.exited;
    // What a balancer's health check does: the dead replica leaves the rotation. (Without it, this
    // proxy's strict turns sent every reconnect's stream to A: listen's calls kept the same parity.)
    proxy.upstreams.splice(proxy.upstreams.indexOf(a.url), 1);
    // Created while listen has no stream anywhere: it gets them when it is back (on B, the only one left).
    const missed: string[] = [];
    for (let i = 0; i < 3; i++) missed.push(`${await newInvoice(b)}-1`);
    await listen.waitForLine((l) => l.startsWith('Reconnected'), 30_000);
    // The missed ones, then the one A held, once its lease ended (25 s) and B took it over.
    await until('every event to reach the app, the one in flight on A again', () => new Set(receivedIds(rx)).size === 4 && rx.requests.length >= 5, 60_000);
    expect([...new Set(receivedIds(rx))].sort()).toEqual([inFlight, ...missed].sort());
    expect(receivedIds(rx).filter((id) => id === inFlight).length).toBe(2);
  }, 120_000);
});
