/**
 * CONTRACT §12 "Many replicas, one sandbox": a `svc webhook listen` connected to one replica receives
 * the deliveries of events created through any replica, with the same replay-on-reconnect as on one
 * process. Its stream is held by one replica; the claims of the others leave its deliveries alone
 * (listener_streams), the result the listener posts back may reach any replica through the balancer
 * (listener_results + NOTIFY), and the reconnect window is judged across replicas.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/typed.js';
import { dataOf } from '../helpers/client-result.js';
import { ikey, type TestEmulator } from '../helpers/emulator.js';
import { openListenerStream, type ListenerStream } from '../helpers/listener-stream.js';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet, until } from '../helpers/replicas.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../helpers/round-robin-proxy.js';

const server = await startPostgres();
const replicas = replicaSet();
const closing: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

const FORWARD_TO = 'http://localhost:3000/hooks';

async function twoReplicasBehindProxy(): Promise<{ a: TestEmulator; b: TestEmulator; proxy: RoundRobinProxy }> {
  const [a, b] = await replicas.start(await server.createDatabase(), 2);
  const proxy = await startRoundRobinProxy([a!.url, b!.url]);
  closing.push(() => proxy.stop());
  return { a: a!, b: b!, proxy };
}

async function listenOn(e: TestEmulator): Promise<ListenerStream> {
  dataOf(await e.client.test.registerListener({ body: { forwardTo: FORWARD_TO } }));
  const stream = await openListenerStream(e.url, e.keys.test.partnerKey);
  closing.push(() => stream.close());
  await stream.next('ready');
  return stream;
}

const newInvoice = async (e: TestEmulator): Promise<string> =>
  dataOf(await e.client.test.createInvoice({ body: { amount: '1' }, idempotencyKey: ikey() }), 201).id;

/** The listener deliveries' rows and the errors of their attempts, from the shared database. */
async function listenerRows(e: TestEmulator) {
  const deliveries = await e.query("SELECT event_id, status, attempt_count FROM deliveries WHERE target = 'listener' ORDER BY seq");
  const errors = await e.query(
    "SELECT a.error FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.target = 'listener' AND a.error IS NOT NULL",
  );
  return { deliveries, errors: errors.map((r) => String(r.error)) };
}

describe('svc webhook listen across replicas', () => {
  it('a stream on A gets every event created through A or B, once; results posted through the balancer reach A', async () => {
    const { a, b, proxy } = await twoReplicasBehindProxy();
    const stream = await listenOn(a);
    // The listener's own calls go through the balancer, as `svc webhook listen` behind one does.
    const viaProxy = createClient({ baseUrl: proxy.url, partnerKey: a.keys.test.partnerKey });
    const created: string[] = [];
    for (let i = 0; i < 20; i++) created.push(`${await newInvoice(i % 2 === 0 ? a : b)}-1`);
    const seen: string[] = [];
    const requestIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const message = (await stream.next('delivery')).data;
      seen.push(message.eventId);
      requestIds.push(message.requestId);
      const report = await viaProxy.reportListenerResult({ body: { requestId: message.requestId, status: 204, body: '', durationMs: 1 } });
      expect(report.status).toBe(200);
    }
    expect(seen.sort()).toEqual([...created].sort());
    // Half the results went to B, which is not waiting for them: each reached A all the same.
    expect(proxy.hits[0]).toBeGreaterThan(0);
    expect(proxy.hits[1]).toBeGreaterThan(0);
    await until('every listener delivery to succeed', async () => {
      const { deliveries } = await listenerRows(a);
      return deliveries.length === 20 && deliveries.every((d) => d.status === 'succeeded');
    });
    const { deliveries, errors } = await listenerRows(a);
    expect(deliveries.every((d) => Number(d.attempt_count) === 1)).toBe(true);
    expect(errors).toEqual([]);
    // None twice.
    expect(stream.messages.filter((m) => m.event === 'delivery')).toEqual([]);
    // A result nobody waits for any more is refused through either replica, as on one process.
    for (const requestId of requestIds.slice(0, 2)) {
      expect((await viaProxy.reportListenerResult({ body: { requestId, status: 200, durationMs: 1 } })).status).toBe(409);
    }
  });

  it('a result for another partner is refused by the replica that relays it', async () => {
    const { a, b } = await twoReplicasBehindProxy();
    const stream = await listenOn(a);
    await newInvoice(b);
    const message = (await stream.next('delivery')).data;
    const other = dataOf(await a.client.test.createPartner({ body: {} }), 201);
    const fromOther = createClient({ baseUrl: b.url, partnerKey: other.test.partnerKey });
    expect((await fromOther.reportListenerResult({ body: { requestId: message.requestId, status: 200, durationMs: 1 } })).status).toBe(409);
    // The owner's result still counts.
    const viaB = createClient({ baseUrl: b.url, partnerKey: b.keys.test.partnerKey });
    expect((await viaB.reportListenerResult({ body: { requestId: message.requestId, status: 200, durationMs: 1 } })).status).toBe(200);
    await until('the delivery to succeed', async () => (await listenerRows(a)).deliveries[0]?.status === 'succeeded');
  });

  it('a listener connected to A is not removed by B’s reconnect-window check', async () => {
    const { a, b } = await twoReplicasBehindProxy();
    const stream = await listenOn(a);
    // Past the 5-minute window on the shared clock; B's sweep runs as the advance answers.
    expect((await b.call('POST', '/__emulator/clock/advance', { body: { seconds: 600 } })).status).toBe(200);
    const listed = dataOf(await b.client.test.listListeners()).data;
    expect(listed).toMatchObject([{ connected: true, removeAt: null }]);
    const invoiceId = await newInvoice(b);
    const message = (await stream.next('delivery')).data;
    expect(message.eventId).toBe(`${invoiceId}-1`);
  });

  it('a dead replica’s stream keeps the listener until its lease ends; the reconnect window starts then', async () => {
    // Short leases (1 s, swept every 200 ms), so the death is noticed fast.
    const [b] = await replicas.start(await server.createDatabase(), 1, { leaseMs: 1000 });
    dataOf(await b!.client.test.registerListener({ body: { forwardTo: FORWARD_TO } }));
    const [listener] = await b!.query('SELECT partner_id FROM listeners');
    // What a replica that was SIGKILLed leaves behind: its stream's row, no longer renewed.
    await b!.query(
      `INSERT INTO listener_streams (replica_id, partner_id, environment, lease_until) VALUES ('dead', '${listener!.partner_id}', 'test', ${Date.now() + 60_000})`,
    );
    // Past the 5-minute window: the dead replica's stream still counts, so the listener stays.
    await b!.call('POST', '/__emulator/clock/advance', { body: { seconds: 600 } });
    expect(dataOf(await b!.client.test.listListeners()).data).toMatchObject([{ connected: true }]);
    // Its lease ends: B's sweep removes the row, and the window starts now, not 10 minutes ago.
    await b!.query(`UPDATE listener_streams SET lease_until = ${Date.now() - 1} WHERE replica_id = 'dead'`);
    await until('B to sweep the dead stream', async () => (await b!.query('SELECT 1 FROM listener_streams')).length === 0);
    await until('the window to start', async () => dataOf(await b!.client.test.listListeners()).data[0]?.connected === false);
    expect(dataOf(await b!.client.test.listListeners()).data).toHaveLength(1);
    await b!.call('POST', '/__emulator/clock/advance', { body: { seconds: 301 } });
    expect(dataOf(await b!.client.test.listListeners()).data).toEqual([]);
  });

  it('after A stops, the listener reconnects to B and gets what it missed', async () => {
    const { a, b } = await twoReplicasBehindProxy();
    const first = await listenOn(a);
    await a.stop();
    first.close();
    const missed: string[] = [];
    for (let i = 0; i < 3; i++) missed.push(`${await newInvoice(b)}-1`);
    const stream = await listenOn(b);
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const message = (await stream.next('delivery')).data;
      seen.push(message.eventId);
      await b.client.test.reportListenerResult({ body: { requestId: message.requestId, status: 200, durationMs: 1 } });
    }
    expect(seen.sort()).toEqual(missed.sort());
  });
});
