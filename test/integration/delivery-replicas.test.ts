/**
 * Work done once across replicas (CONTRACT §12, issue 28): two emulators on one PostgreSQL database,
 * in this process. A replica that goes away holding claims loses them when their leases end, and the
 * other finishes the work; a replica starting beside a live one leaves its claims alone; with every
 * replica healthy, no event is delivered twice, even when attempts outlast a lease (renewed). Leases
 * are shortened (startEmulator's `leaseMs`) so that a takeover takes seconds, not 25; renewals come
 * every fifth of a lease, so only an event loop stalled for most of a lease could lose one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

const server: PostgresServer = await startPostgres();
const LEASE_MS = 2000;
const SECRET = 'whsec_replicas_0123456789';

const emulators: TestEmulator[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((e) => e.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function replica(database: string, leaseMs = LEASE_MS): Promise<TestEmulator> {
  const emu = await startTestEmulator({ database, leaseMs });
  emulators.push(emu);
  return emu;
}

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const rx = await startReceiver(...args);
  receivers.push(rx);
  return rx;
}

/** Polls `check` until it holds (a condition, never a duration), failing after a generous ceiling. */
async function until(what: string, check: () => Promise<boolean>, ceilingMs = 15_000): Promise<void> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > ceilingMs) throw new Error(`still waiting for ${what} after ${ceilingMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const envelopeId = (body: string): string => (JSON.parse(body) as { id: string }).id;

async function createInvoices(emu: TestEmulator, n: number): Promise<void> {
  for (let i = 0; i < n; i++) dataOf(await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1' } }), 201);
}

describe('deliveries across replicas on one PostgreSQL database', () => {
  it('a replica that goes away holding claims loses them when their leases end; another delivers them', async () => {
    const database = await server.createDatabase();
    const CLAIMED = 3;
    // Replica A's attempts (the first CLAIMED requests) never get an answer; later ones get 200.
    const rx = await receiver((_req, n) => (n <= CLAIMED ? 'hang' : { status: 200 }));
    const a = await replica(database);
    dataOf(await a.client.test.putWebhook({ body: { url: rx.url, secret: SECRET } }));
    await createInvoices(a, CLAIMED);
    const held = await rx.waitFor(CLAIMED, 10_000);
    const claims = async () => await a.query("SELECT id, in_flight, lease_token FROM deliveries WHERE status = 'pending' ORDER BY id");
    const before = await claims();
    expect(before.map((r) => r.in_flight)).toEqual(Array(CLAIMED).fill(1));

    // B starts beside a live A: start-up releases only expired leases, so A's claims stay A's.
    const b = await replica(database);
    expect(await b.query("SELECT id, in_flight, lease_token FROM deliveries WHERE status = 'pending' ORDER BY id")).toEqual(before);

    // A goes away without finishing (its attempts hang; it writes no result, renews nothing more).
    await a.stop();
    emulators.splice(emulators.indexOf(a), 1);

    // B takes the claims over once A's leases end, and delivers each event once more, same envelope id.
    await rx.waitFor(2 * CLAIMED, 15_000);
    await until('every delivery to be recorded as succeeded', async () => {
      const [row] = await b.query("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'succeeded' AND in_flight = 0");
      return Number(row!.n) === CLAIMED;
    });
    const resent = rx.requests.slice(CLAIMED).map((r) => envelopeId(r.rawBody));
    expect(resent.sort()).toEqual(held.map((r) => envelopeId(r.rawBody)).sort());
    // A's lost attempts were never recorded: one attempt each, B's.
    const [attempts] = await b.query('SELECT COUNT(*) AS n FROM delivery_attempts');
    expect(Number(attempts!.n)).toBe(CLAIMED);
    const rows = await b.query("SELECT attempt_count, lease_token, lease_until FROM deliveries WHERE status = 'succeeded'");
    expect(rows).toEqual(Array(CLAIMED).fill({ attempt_count: 1, lease_token: null, lease_until: null }));
  });

  it('with both replicas healthy, 200 events created through both are each delivered exactly once', async () => {
    const database = await server.createDatabase();
    // The first few attempts outlast a lease: their replica renews it, and the other must not take them.
    const lease = 3000;
    const rx = await receiver((_req, n) => (n <= 3 ? { status: 200, delayMs: lease + 1000 } : { status: 200 }));
    const a = await replica(database, lease);
    dataOf(await a.client.test.putWebhook({ body: { url: rx.url, secret: SECRET } }));
    const b = await replica(database, lease);
    const sent = { a: 0, b: 0 };
    a.on((e) => void (e.type === 'delivery.sent' && sent.a++));
    b.on((e) => void (e.type === 'delivery.sent' && sent.b++));

    await Promise.all([createInvoices(a, 100), createInvoices(b, 100)]);
    // Done when every delivery succeeded and no attempt runs anywhere: nothing more can be sent
    // (a succeeded delivery is never claimed again, and healthy replicas keep their leases).
    await until(
      'all 200 deliveries to succeed',
      async () => {
        const [row] = await a.query("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'succeeded' AND in_flight = 0");
        return Number(row!.n) === 200;
      },
      30_000,
    );
    const perEnvelope = new Map<string, number>();
    for (const r of rx.requests) perEnvelope.set(envelopeId(r.rawBody), (perEnvelope.get(envelopeId(r.rawBody)) ?? 0) + 1);
    expect(perEnvelope.size).toBe(200);
    expect([...perEnvelope.values()].filter((n) => n !== 1)).toEqual([]);
    expect(rx.requests).toHaveLength(200);
    expect(sent.a + sent.b).toBe(200);
    const [attempts] = await b.query('SELECT COUNT(*) AS n FROM delivery_attempts');
    expect(Number(attempts!.n)).toBe(200);
  });

  it('a receiver’s in-flight cap counts the attempts of every replica', async () => {
    const database = await server.createDatabase();
    // Receiver 1 never answers (and attempts do not time out during the test): each attempt holds a slot.
    const slow = await receiver('hang');
    const probe = await receiver({ status: 200 });
    const config = { webhooks: { timeoutMs: 60_000 } };
    const a = await startTestEmulator({ database, config });
    emulators.push(a);
    const b = await startTestEmulator({ database, config });
    emulators.push(b);
    dataOf(await a.client.test.putWebhook({ body: { url: slow.url, secret: SECRET } }));
    const CAP = 64;
    const inFlight = async () => {
      const [row] = await b.query(`SELECT COUNT(*) AS n FROM deliveries WHERE in_flight = 1 AND partner_id = '${a.keys.partnerId}'`);
      return Number(row!.n);
    };

    // The receiver's cap fills up through A (its own count alone would stop it there too).
    await createInvoices(a, CAP + 6);
    await slow.waitFor(CAP, 15_000);
    // B's own count of the receiver's attempts is 0: only the database's count can stop its claims.
    await createInvoices(b, 10);
    // A probe through B, to another partner's receiver: once it arrives, every claim B queued for
    // the creates above has run (claims run one at a time, in order), and committed what it took.
    const other = dataOf(await b.client.test.createPartner({ body: { name: 'Probe' } }), 201);
    const key = other.test.partnerKey;
    dataOf(await b.client.test.putWebhook({ key, body: { url: probe.url, secret: SECRET } }));
    const merchant = dataOf(
      await b.client.test.createMerchant({ key, idempotencyKey: ikey(), body: { externalTenantId: 'probe', email: 'probe@example.com', name: 'Probe' } }),
      201,
    );
    dataOf(await b.client.test.createPartnerInvoice({ key, idempotencyKey: ikey(), body: { merchantId: merchant.merchantId, amount: '1' } }), 201);
    await probe.waitFor(1, 15_000);
    // Claims of the two replicas take turns, each counting the other's committed rows: exactly the
    // cap (without the shared count, B would have taken all of its 10 and more).
    expect(await inFlight()).toBe(CAP);
  });

  it('a result that comes back after its claim was lost is dropped: the new holder’s record stands', async () => {
    const database = await server.createDatabase();
    // A's attempt (the first request) hangs until the receiver closes; every later one gets 200.
    const rx = await receiver((_req, n) => (n === 1 ? 'hang' : { status: 200 }));
    const config = { webhooks: { timeoutMs: 60_000 } };
    const a = await startTestEmulator({ database, config });
    emulators.push(a);
    const b = await startTestEmulator({ database, config });
    emulators.push(b);
    dataOf(await a.client.test.putWebhook({ body: { url: rx.url, secret: SECRET } }));
    await createInvoices(a, 1);
    const [first] = await rx.waitFor(1, 10_000);
    // A's lease "ends" and is released, as another replica's sweep does once A stopped renewing it.
    await a.query('UPDATE deliveries SET in_flight = 0, lease_token = NULL, lease_until = NULL WHERE in_flight = 1');
    // A create through B makes B claim what is due: the released delivery too, delivered with 200.
    await createInvoices(b, 1);
    await rx.waitFor(3, 10_000);
    await until('both deliveries to succeed', async () => {
      const [row] = await b.query("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'succeeded' AND in_flight = 0");
      return Number(row!.n) === 2;
    });
    // Now A's old attempt ends (a connection error), and A writes what it has (advance waits for that).
    await rx.close();
    receivers.splice(receivers.indexOf(rx), 1);
    await a.advanceClock(0);
    const id = envelopeId(first!.rawBody);
    const [row] = await b.query(`SELECT d.status, d.attempt_count, d.last_response_status FROM deliveries d WHERE d.event_id = '${id}'`);
    expect(row).toEqual({ status: 'succeeded', attempt_count: 1, last_response_status: 200 });
    const attempts = await b.query(`SELECT a.response_status FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.event_id = '${id}'`);
    expect(attempts).toEqual([{ response_status: 200 }]);
  });
});
