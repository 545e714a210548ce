/**
 * The cap on attempts in flight is per receiver (scheme, host and port), and partners take turns
 * (issue 40): capped per exact URL, one tenant cycling `?n=1`, `?n=2`, … in its webhook URL took a
 * slot per URL against a slow receiver and delayed other tenants' deliveries from 0.46 s to 5.3 s.
 * A receiver here holds every request until the test lets it go, so what is in flight is counted,
 * never timed: the assertions are on counts and order.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api-response.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver } from '../helpers/receiver.js';
import { until } from '../helpers/replicas.js';

const SECRET = 'whsec_fairness_0123456789abcdef';
const CAP = 64;

interface Gated {
  url: string;
  /** Requests held now, and the most ever held at once. */
  readonly open: number;
  readonly maxOpen: number;
  /** The path and query of every request, in the order they arrived. */
  readonly arrivals: string[];
  /** Answers every request held, and from now on each one as it comes. */
  openGate(): void;
  close(): Promise<void>;
}

/** A receiver that holds every request (answering none) until `openGate()`. */
async function gatedReceiver(): Promise<Gated> {
  const held: http.ServerResponse[] = [];
  const arrivals: string[] = [];
  let open = 0;
  let maxOpen = 0;
  let gate = false;
  const answer = (res: http.ServerResponse) => {
    res.writeHead(200).end('ok');
    open -= 1;
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(req.url ?? '');
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      if (gate) answer(res);
      else held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get open() {
      return open;
    },
    get maxOpen() {
      return maxOpen;
    },
    arrivals,
    openGate() {
      gate = true;
      for (const res of held.splice(0)) answer(res);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function emulator(): Promise<TestEmulator> {
  // Held requests must not time out meanwhile.
  const emu = await startTestEmulator({ config: { webhooks: { timeoutMs: 60_000, retrySchedule: [3600] } } });
  cleanups.push(() => emu.stop());
  return emu;
}

/** A new partner (a tenant) with one merchant: its partner key and merchant id. */
async function tenant(emu: TestEmulator, name: string): Promise<{ key: string; merchantId: string }> {
  const partner = ok(await emu.call('POST', '/__emulator/partners', { body: { name } }), 201);
  const key = partner.test.partnerKey as string;
  const merchant = ok(
    await emu.call('POST', '/v1/partner/merchants', {
      key,
      idempotencyKey: `${name}-merchant`,
      body: { externalTenantId: name, email: `${name}@example.com`, name },
    }),
    201,
  );
  return { key, merchantId: merchant.merchantId as string };
}

async function invoice(emu: TestEmulator, t: { key: string; merchantId: string }, ref: string): Promise<void> {
  ok(
    await emu.call('POST', '/v1/partner/invoices', { key: t.key, idempotencyKey: ref, body: { merchantId: t.merchantId, amount: '1.00', referenceId: ref } }),
    201,
  );
}

const setWebhook = async (emu: TestEmulator, key: string, url: string) =>
  ok(await emu.call('PUT', '/v1/partner/webhook', { key, body: { url, secret: SECRET } }));

describe('attempts in flight per receiver', () => {
  it('a tenant cycling ?n=1, ?n=2, … against a slow receiver holds at most 64 of its slots; another tenant is delivered meanwhile', async () => {
    const emu = await emulator();
    const slow = await gatedReceiver();
    cleanups.push(() => slow.close());
    const fast = await startReceiver();
    cleanups.push(() => fast.close());
    const cycling = await tenant(emu, 'cycling');
    const other = await tenant(emu, 'other');
    for (let n = 0; n < 100; n++) {
      await setWebhook(emu, cycling.key, `${slow.url}/hooks?n=${n}`);
      await invoice(emu, cycling, `cycling-${n}`);
    }
    await until('the slow receiver to hold its cap', () => slow.open >= CAP);
    await setWebhook(emu, other.key, `${fast.url}/hooks`);
    for (let n = 0; n < 20; n++) await invoice(emu, other, `other-${n}`);
    await fast.waitFor(20);
    // All 20 of the other tenant's arrived while the slow receiver still held the cycling tenant's,
    // and the emulator had claimed no more than the cap of those: the old per-URL cap claimed one
    // per URL (100 here; the HTTP client's 64 connections per origin queued the rest), and past 1,024
    // of them no slot was left for anyone else.
    const claimed = await emu.query(`SELECT count(*) AS n FROM deliveries WHERE in_flight = 1 AND url LIKE '${slow.url}/%'`);
    expect(Number(claimed[0]!.n)).toBe(CAP);
    expect(slow.open).toBe(CAP);
    expect(slow.arrivals).toHaveLength(CAP);
    slow.openGate();
    await until('every cycling delivery', () => slow.arrivals.length >= 100, 60_000);
    expect(slow.maxOpen).toBe(CAP);
  }, 60_000);

  it('two tenants on one receiver take turns: the second one’s deliveries do not wait behind the first one’s backlog', async () => {
    const emu = await emulator();
    const shared = await gatedReceiver();
    cleanups.push(() => shared.close());
    const first = await tenant(emu, 'first');
    const second = await tenant(emu, 'second');
    await setWebhook(emu, first.key, `${shared.url}/first`);
    await setWebhook(emu, second.key, `${shared.url}/second`);
    for (let n = 0; n < 150; n++) await invoice(emu, first, `first-${n}`);
    await until('the receiver to hold its cap', () => shared.open >= CAP);
    for (let n = 0; n < 10; n++) await invoice(emu, second, `second-${n}`);
    expect(shared.arrivals.filter((a) => a === '/second')).toHaveLength(0);
    shared.openGate();
    await until('all 160 deliveries', () => shared.arrivals.length >= 160, 60_000);
    // In arrival order: the second tenant's ten take turns with the first tenant's 86 left for the
    // 64 slots freed, and all get one (first in, first out, they would all come after those 86).
    const after = shared.arrivals.slice(CAP);
    const positions = after.flatMap((a, i) => (a === '/second' ? [i] : []));
    expect(positions).toHaveLength(10);
    expect(Math.max(...positions)).toBeLessThan(CAP);
    expect(shared.maxOpen).toBe(CAP);
  }, 60_000);
});
