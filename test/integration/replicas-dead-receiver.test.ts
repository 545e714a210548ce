/**
 * One dead receiver costs the other receivers nothing across replicas (CONTRACT §12, issue 28; bench
 * #24 measures the latency). Two replicas on one PostgreSQL database; partner X's receiver never
 * answers, partner Y's answers at once. X's events come through both replicas, enough to fill the
 * per-receiver cap (64 attempts in flight, src/webhooks/dispatcher.ts) on each replica twice over,
 * and X's attempts time out and are retried within the test (short timeout and schedule), so the
 * cap is taken, let go and taken again by both replicas at once. Every Y event is delivered, and
 * X's server never holds more than 64 attempts at a time, counted where they arrive.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey, type TestEmulator } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { replicaSet, until } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();
const SECRET = 'whsec_dead_receiver_0123456789';
/** The dispatcher's per-receiver cap (MAX_IN_FLIGHT_PER_URL): not an option, so the test uses it as it is. */
const CAP = 64;

/** A receiver that never answers and counts the requests it holds open, and the most it held at once. */
interface HangingServer {
  url: string;
  total: number;
  open: number;
  most: number;
  close(): Promise<void>;
}

async function hangingServer(): Promise<HangingServer> {
  const state = { total: 0, open: 0, most: 0 };
  // Held requests end only when the emulator gives up (its timeout) and closes the connection.
  const http: Server = createServer((req, res) => {
    state.total += 1;
    state.open += 1;
    state.most = Math.max(state.most, state.open);
    res.on('close', () => {
      state.open -= 1;
    });
    req.resume();
  });
  http.requestTimeout = 0;
  http.headersTimeout = 0;
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/x`,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  });
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A partner of its own with a merchant, its webhook pointed at `url`; returns what creates need. */
async function partner(emu: TestEmulator, name: string, url: string): Promise<{ key: string; merchantId: string }> {
  const created = dataOf(await emu.client.test.createPartner({ body: { name } }), 201);
  const key = created.test.partnerKey;
  dataOf(await emu.client.test.putWebhook({ key, body: { url, secret: SECRET } }));
  const merchant = dataOf(
    await emu.client.test.createMerchant({ key, idempotencyKey: ikey(), body: { externalTenantId: name, email: `${name}@example.com`, name } }),
    201,
  );
  return { key, merchantId: merchant.merchantId };
}

async function createEvents(emu: TestEmulator, who: { key: string; merchantId: string }, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    dataOf(await emu.client.test.createPartnerInvoice({ key: who.key, idempotencyKey: ikey(), body: { merchantId: who.merchantId, amount: '1' } }), 201);
  }
}

describe('a dead receiver beside a live one, across two replicas', () => {
  it('every event of the live receiver is delivered, and the dead one never holds more than the cap', async () => {
    const database = await server.createDatabase();
    // Attempts to X give up after 1.5 s and are retried 1 s later (emulator clock, flowing): X's slots
    // are let go and claimed again by both replicas several times while the test runs.
    const config = { webhooks: { timeoutMs: 1500, retrySchedule: [1, 1, 1, 1, 1, 1, 1] } };
    const [a, b] = (await replicas.start(database, 2, { config })) as [TestEmulator, TestEmulator];
    const dead = await hangingServer();
    closers.push(dead.close);
    const live: Receiver = await startReceiver({ status: 200 });
    closers.push(live.close);
    const x = await partner(a, 'x', dead.url);
    const y = await partner(b, 'y', live.url);

    // X's events through both replicas at once: each replica's claims race the other's for X's slots.
    const X_EVENTS = 3 * CAP;
    await Promise.all([createEvents(a, x, X_EVENTS / 2), createEvents(b, x, X_EVENTS / 2)]);
    await until('X’s cap to fill', () => dead.open >= CAP, 15_000);
    // Y's events while X holds its cap, through both replicas, then until X's attempts were let go and
    // taken again at least twice over (every X event attempted, several retried).
    const Y_EVENTS = 60;
    await Promise.all([createEvents(a, y, Y_EVENTS / 2), createEvents(b, y, Y_EVENTS / 2)]);
    await live.waitFor(Y_EVENTS, 15_000);
    await until('X’s attempts to time out and be retried', () => dead.total >= X_EVENTS + 2 * CAP, 30_000);

    // Every Y event arrived (by envelope id: a Y attempt slower than the short timeout may come twice).
    expect(new Set(live.requests.map((r) => (JSON.parse(r.rawBody) as { id: string }).id)).size).toBe(Y_EVENTS);
    expect(dead.most).toBeGreaterThanOrEqual(CAP);
    expect(dead.most).toBeLessThanOrEqual(CAP);
  });
});
