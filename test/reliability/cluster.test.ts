/**
 * Reliability: many replicas, one sandbox (CONTRACT §12 "No loss", "Many replicas", "The database
 * goes away"; issue 28). Three real `svc dev --json --port 0 --database <url>` processes on one real
 * PostgreSQL server, the round-robin proxy in front (test/reliability/lib/cluster.ts); clients talk to
 * the proxy unless a test is about reaching two replicas at once. Creates carry Idempotency-Keys and
 * are retried with the same key after a cut connection, 502, 503 or 409 in progress
 * (lib/cluster-load.ts). Nothing here asserts a duration: waits are for conditions, with ceilings.
 *
 * The replicas run svc dev's real delivery lease (25 s, renewed every 5 s), so the takeover in the
 * first test comes 25–30 s after the kill: most of this file's time.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';
import { type Behaviour, type Receiver, startReceiver } from '../helpers/receiver.js';
import { type Cluster, startCluster } from './lib/cluster.js';
import { countByEnvelope, createInvoice, envelopes, missingInvoices, newTally, startWriters, statusLine, until } from './lib/cluster-load.js';

const server: PostgresServer = await startPostgres();
const SECRET = 'whsec_reliability_cluster_0123456789';

const clusters: Cluster[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function cluster(count = 3, envOf?: (n: number) => NodeJS.ProcessEnv): Promise<Cluster> {
  const c = await startCluster(await server.createDatabase(), count, envOf);
  clusters.push(c);
  // Started together on an empty database: one migration, one set of default keys for all.
  for (const r of c.replicas) expect(r.ready.test).toEqual(c.keys);
  return c;
}

/** A receiver, set as the default partner's webhook through the proxy. */
async function webhookTo(c: Cluster, behaviour: Behaviour = {}): Promise<Receiver> {
  const rx = await startReceiver(behaviour);
  receivers.push(rx);
  const put = await c.client.call('PUT', '/v1/partner/webhook', { key: c.keys.partnerKey, body: { url: `${rx.url}/hooks`, secret: SECRET } });
  expect(put.cut ? put.error.message : put.status).toBe(200);
  return rx;
}

/** Deliveries not yet done: pending or retrying, or claimed by a replica. */
async function deliveriesOpen(c: Cluster): Promise<number> {
  const [row] = await c.query("SELECT count(*) AS n FROM deliveries WHERE status NOT IN ('succeeded', 'failed') OR in_flight = 1");
  return Number(row!.n);
}

/** invoice.created envelopes received, by invoice id: the distinct envelope ids, and how many requests. */
function createdByInvoice(rx: Receiver): Map<string, { ids: Set<string>; bodies: Set<string>; count: number }> {
  const byInvoice = new Map<string, { ids: Set<string>; bodies: Set<string>; count: number }>();
  for (const e of envelopes(rx.requests)) {
    if (e.type !== 'invoice.created') continue;
    const entry = byInvoice.get(e.data.invoiceId) ?? { ids: new Set(), bodies: new Set(), count: 0 };
    entry.ids.add(e.id);
    entry.bodies.add(e.raw);
    entry.count++;
    byInvoice.set(e.data.invoiceId, entry);
  }
  return byInvoice;
}

const health = async (c: Cluster, n: number) => {
  const reply = await c.replicas[n]!.client.call('GET', '/__emulator/health');
  return reply.cut ? 'cut' : `${reply.status} ${reply.body?.status}`;
};

describe('a cluster of three svc dev processes on one PostgreSQL', () => {
  it('a SIGKILL of one replica during creates and deliveries: no acknowledged create lost, every invoice.created delivered, its claims taken over', async () => {
    const c = await cluster();
    // Every answer comes 300 ms late, so that each replica has attempts in flight (claims, with
    // leases) whenever the kill comes.
    const rx = await webhookTo(c, { status: 200, delayMs: 300 });
    const writers = startWriters(c.client, c.keys, 6, 'kill-');
    const { tally } = writers;
    const victim = c.replicas[1]!;
    let held: string[] = [];
    try {
      await until('150 creates acknowledged', () => tally.acknowledged.size >= 150);
      await until('the victim to have attempts in flight', () => victim.unfinishedDeliveries().length >= 5);
      await victim.kill();
      // Its attempts that never reported a result and are still claimed: held under its lease,
      // which nobody renews now. (Another replica can take a claim only once the lease ended.)
      const unfinished = victim.unfinishedDeliveries();
      held = (await c.query('SELECT id FROM deliveries WHERE in_flight = 1 AND id = ANY($1)', [unfinished])).map((r) => r.id as string);
      // The balancer keeps sending a third of the requests to the dead replica (502s, retried)...
      const atKill = tally.acknowledged.size;
      await until('150 creates acknowledged after the kill', () => tally.acknowledged.size >= atKill + 150);
      // ...until its health check takes it out.
      c.drop(victim);
      const atDrop = tally.acknowledged.size;
      await until('50 more creates acknowledged', () => tally.acknowledged.size >= atDrop + 50);
    } finally {
      await writers.stop();
    }
    expect(tally.unexpected).toEqual([]);
    expect(tally.answers.get('500') ?? 0).toBe(0);
    // The kill cost the clients something (connections cut or 502s), and it was retried away.
    expect((tally.answers.get('cut') ?? 0) + (tally.answers.get('502') ?? 0)).toBeGreaterThan(0);
    // Every acknowledged create is there, through the proxy, and each key made one invoice.
    expect(await missingInvoices(c.client, c.keys.partnerKey, tally.acknowledged)).toEqual([]);
    expect(new Set(tally.acknowledged.values()).size).toBe(tally.acknowledged.size);
    const [invoices] = await c.query('SELECT count(*) AS n, count(DISTINCT reference_id) AS keys FROM invoices');
    expect(Number(invoices!.n)).toBe(Number(invoices!.keys));

    // The dead replica's claims: taken over once their leases end (≤ 30 s), and delivered.
    expect(held.length).toBeGreaterThan(0);
    await until('the dead replica’s claims to be taken over and succeed', async () => {
      const rows = await c.query("SELECT count(*) AS n FROM deliveries WHERE id = ANY($1) AND status = 'succeeded' AND in_flight = 0", [held]);
      return Number(rows[0]!.n) === held.length;
    });
    // Every invoice's invoice.created arrived at least once; a duplicate is the same envelope.
    const ids = [...new Set(tally.acknowledged.values())];
    await until('every invoice.created delivered', () => {
      const got = createdByInvoice(rx);
      return ids.every((id) => got.has(id));
    });
    await until('every delivery done', async () => (await deliveriesOpen(c)) === 0);
    const got = createdByInvoice(rx);
    for (const [invoiceId, { ids: envelopeIds, bodies }] of got) {
      expect([...envelopeIds]).toEqual([`${invoiceId}-1`]);
      expect(bodies.size).toBe(1);
    }
    const perEnvelope = countByEnvelope(rx.requests);
    const duplicates = rx.requests.length - perEnvelope.size;
    console.log(
      `[cluster kill] ${tally.acknowledged.size} creates acknowledged (${statusLine(tally)}); ${held.length} deliveries held by the killed replica, taken over; ` +
        `${rx.requests.length} deliveries received, ${perEnvelope.size} envelopes, ${duplicates} duplicates; proxy turns ${JSON.stringify(c.proxy.hits)}`,
    );
  });

  it('all replicas healthy, no chaos: every event delivered exactly once', async () => {
    const c = await cluster();
    const rx = await webhookTo(c);
    const writers = startWriters(c.client, c.keys, 4, 'healthy-');
    try {
      await until('300 creates acknowledged', () => writers.tally.acknowledged.size >= 300);
    } finally {
      await writers.stop();
    }
    expect(writers.tally.unexpected).toEqual([]);
    const [events] = await c.query('SELECT count(*) AS n FROM events');
    const total = Number(events!.n);
    expect(total).toBe(writers.tally.acknowledged.size);
    // Done when nothing is due or claimed anywhere: no replica has anything more to send.
    await until('every delivery done', async () => (await deliveriesOpen(c)) === 0 && rx.requests.length >= total);
    const perEnvelope = countByEnvelope(rx.requests);
    expect(perEnvelope.size).toBe(total);
    expect([...perEnvelope].filter(([, n]) => n !== 1)).toEqual([]);
    expect(rx.requests).toHaveLength(total);
    const sentBy = c.replicas.map((r) => r.cli.lines.filter((l) => l.includes('"delivery.sent"')).length);
    console.log(
      `[cluster healthy] ${total} creates (${statusLine(writers.tally)}); ${rx.requests.length} deliveries, 0 duplicates; sent by replica ${sentBy.join('/')}`,
    );
  });

  it('one Idempotency-Key sent to two replicas at once, for 50 keys, makes one invoice each', async () => {
    const c = await cluster(2);
    const [a, b] = c.replicas as [Cluster['replicas'][0], Cluster['replicas'][0]];
    const KEYS = 50;
    const body = (key: string) => ({ merchantId: c.keys.merchantId, amount: '3.00', referenceId: key });
    // Four requests per key, two to each replica, all 200 sent at once.
    const sent = Array.from({ length: KEYS }, (_, k) =>
      [a, a, b, b].map((r) => r.client.call('POST', '/v1/partner/invoices', { key: c.keys.partnerKey, idempotencyKey: `race-${k}`, body: body(`race-${k}`) })),
    );
    const statuses = new Map<number, number>();
    for (const [k, replies] of sent.entries()) {
      const answers = await Promise.all(replies);
      const done = answers.map((r) => (r.cut ? 0 : r.status));
      for (const s of done) statuses.set(s, (statuses.get(s) ?? 0) + 1);
      // One 201; the others replay it (200) or found it still in progress on their replica (409).
      expect(
        done.filter((s) => s === 201),
        `race-${k}: ${done}`,
      ).toHaveLength(1);
      expect(
        done.every((s) => s === 201 || s === 200 || s === 409),
        `race-${k}: ${done}`,
      ).toBe(true);
      const ids = new Set(answers.filter((r) => !r.cut && r.status < 300).map((r) => (r.cut ? '' : r.body.id)));
      expect(ids.size).toBe(1);
    }
    // In the database: one invoice and one invoice.created per key.
    const perKey = await c.query('SELECT reference_id, count(*) AS n FROM invoices GROUP BY reference_id HAVING count(*) <> 1');
    expect(perKey).toEqual([]);
    const [rows] = await c.query("SELECT count(*) AS invoices, (SELECT count(*) FROM events WHERE type = 'invoice.created') AS events FROM invoices");
    expect(rows).toEqual({ invoices: String(KEYS), events: String(KEYS) });
    console.log(`[cluster idempotency] ${KEYS} keys × 4 requests over 2 replicas: ${JSON.stringify(Object.fromEntries(statuses))}; ${KEYS} invoices`);
  });

  it('clock advances through two replicas at once expire the invoices created through a third, once each', async () => {
    const c = await cluster();
    const rx = await webhookTo(c);
    const [a, b, third] = c.replicas as [Cluster['replicas'][0], Cluster['replicas'][0], Cluster['replicas'][0]];
    const INVOICES = 30;
    const tally = newTally();
    for (let i = 0; i < INVOICES; i++) expect(await createInvoice(third.client, c.keys, `expire-${i}`, tally)).toBeDefined();
    await until('every invoice.created delivered', () => rx.requests.length >= INVOICES);
    // Past the 60-minute lifetime, through A and B together: each invoice is expired by one of them.
    const advances = await Promise.all([a, b].map((r) => r.client.call('POST', '/__emulator/clock/advance', { body: { seconds: 3700 } })));
    const expiredByAnswer = advances.map((r) => (r.cut ? Number.NaN : (r.body.expired as number)));
    expect(advances.map((r) => (r.cut ? 0 : r.status))).toEqual([200, 200]);
    // Each answer counts what its replica expired; the third, told of the new time, may have run
    // some itself. Either way all are expired once the advances answered (they wait on row locks).
    expect(expiredByAnswer[0]! + expiredByAnswer[1]!).toBeLessThanOrEqual(INVOICES);
    const [stillOpen] = await c.query("SELECT count(*) AS n FROM invoices WHERE status <> 'EXPIRED'");
    expect(Number(stillOpen!.n)).toBe(0);
    const events = await c.query("SELECT invoice_id, count(*) AS n FROM events WHERE type = 'invoice.expired' GROUP BY invoice_id");
    expect(events).toHaveLength(INVOICES);
    expect(events.filter((e) => Number(e.n) !== 1)).toEqual([]);
    await until('every delivery done', async () => (await deliveriesOpen(c)) === 0 && rx.requests.length >= 2 * INVOICES);
    const expired = envelopes(rx.requests).filter((e) => e.type === 'invoice.expired');
    expect(expired).toHaveLength(INVOICES);
    expect(new Set(expired.map((e) => e.id)).size).toBe(INVOICES);
    for (const e of expired) expect(e.id).toBe(`${e.data.invoiceId}-2`);
    // Every replica reads them EXPIRED.
    for (const r of c.replicas) {
      const list = await r.client.call('GET', '/v1/partner/invoices?limit=100', { key: c.keys.partnerKey });
      expect(list.cut ? [] : (list.body.data as { status: string }[]).map((i) => i.status)).toEqual(Array(INVOICES).fill('EXPIRED'));
    }
    console.log(
      `[cluster clock] ${INVOICES} invoices expired once each (by the advancing replicas ${expiredByAnswer.join(' + ')}, the rest by the third); ${expired.length} invoice.expired deliveries`,
    );
  });

  // Last: it stops the file's server (the other tests' databases are gone by then anyway).
  it('the PostgreSQL server restarts under load: every replica recovers by itself, nothing acknowledged lost', async () => {
    const c = await cluster();
    const writers = startWriters(c.client, c.keys, 4, 'restart-');
    const { tally } = writers;
    try {
      await until('100 creates acknowledged', () => tally.acknowledged.size >= 100);
      await server.stopServer();
      const before503 = tally.answers.get('503') ?? 0;
      await until('a writer meeting the outage', () => (tally.answers.get('503') ?? 0) > before503);
      // While the database is away, every replica says so (health asks the database).
      for (let n = 0; n < c.replicas.length; n++) expect(await health(c, n)).toBe('503 degraded');
      await server.startServer();
      // Nobody restarts them: each replica's health comes back on its own.
      for (let n = 0; n < c.replicas.length; n++) {
        await until(`replica ${n} healthy again`, async () => (await health(c, n)) === '200 ok');
      }
      const atRecovery = tally.acknowledged.size;
      await until('100 creates acknowledged after the restart', () => tally.acknowledged.size >= atRecovery + 100);
    } finally {
      await writers.stop();
    }
    expect(tally.unexpected).toEqual([]);
    expect(tally.answers.get('500') ?? 0).toBe(0);
    expect(await missingInvoices(c.client, c.keys.partnerKey, tally.acknowledged)).toEqual([]);
    const doubled = await c.query('SELECT reference_id FROM invoices GROUP BY reference_id HAVING count(*) <> 1');
    expect(doubled).toEqual([]);
    console.log(`[cluster pg restart] ${tally.acknowledged.size} creates acknowledged (${statusLine(tally)}); proxy turns ${JSON.stringify(c.proxy.hits)}`);
  });

  it('a replica whose clock runs two hours ahead takes no live claim, and its own are taken over after a lease when it dies', async () => {
    // CONTRACT §12 "bounded claims" (issue 40): leases are measured on the database's clock. Before,
    // a replica ahead released every live claim of the others at its sweep (duplicates), and its own
    // claims, ending two hours "later", outlived it.
    const ahead = { NODE_OPTIONS: `--import ${fileURLToPath(new URL('./lib/clock-ahead.mjs', import.meta.url))}` };
    // One emulator clock for the sandbox (frozen, shared): work either replica writes is due for both,
    // whatever their wall clocks say. Only the leases see the skew.
    const sandboxClock = { SVC_CLOCK_START: '2030-01-01T00:00:00Z' };
    const c = await cluster(2, (n) => (n === 1 ? { ...sandboxClock, ...ahead } : sandboxClock));
    const [onTime, skewed] = c.replicas as [Cluster['replicas'][0], Cluster['replicas'][0]];
    // Each attempt stays in flight 6 s: longer than a sweep's interval (5 s).
    const rx = await webhookTo(c, { status: 200, delayMs: 6000 });
    const tally = newTally();
    for (let i = 0; i < 20; i++) expect(await createInvoice(onTime.client, c.keys, `ahead-${i}`, tally)).toBeDefined();
    await until('every invoice.created delivered', () => rx.requests.length >= 20);
    await until('every delivery done', async () => (await deliveriesOpen(c)) === 0);
    // Nobody took a claim still being attempted: each envelope came once.
    const once = countByEnvelope(rx.requests);
    expect([...once].filter(([, n]) => n !== 1)).toEqual([]);

    // Now the skewed replica holds claims, and dies.
    for (let i = 0; i < 20; i++) expect(await createInvoice(skewed.client, c.keys, `dies-${i}`, tally)).toBeDefined();
    await until('the skewed replica to have attempts in flight', () => skewed.unfinishedDeliveries().length >= 3);
    await skewed.kill();
    const held = (await c.query('SELECT id FROM deliveries WHERE in_flight = 1 AND id = ANY($1)', [skewed.unfinishedDeliveries()])).map((r) => r.id as string);
    expect(held.length).toBeGreaterThan(0);
    // Taken over after one lease (25 s) and a sweep (5 s), not two hours.
    await until(
      'the dead replica’s claims to be taken over and succeed',
      async () => {
        const rows = await c.query("SELECT count(*) AS n FROM deliveries WHERE id = ANY($1) AND status = 'succeeded' AND in_flight = 0", [held]);
        return Number(rows[0]!.n) === held.length;
      },
      60_000,
    );
    console.log(`[cluster clock ahead] 20 deliveries once each beside the replica ahead; ${held.length} of its claims taken over after its death`);
  });
});
