/**
 * Crash safety of webhook delivery with a real child process (CONTRACT §4 outbox, §5 delivery):
 * `svc dev --json --port 0 --db <file>` is killed (SIGKILL) or stopped (SIGTERM) while deliveries are
 * pending, retrying or in flight, then restarted on the same SQLite file. Nothing may be lost: every
 * event of every invoice reaches the receiver, in full sequence, and every delivery ends succeeded.
 * Runs the built CLI (the e2e project builds dist/ first, test/helpers/build-once.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { spawnCli, type LiveCli } from '../helpers/cli.js';
import { ikey, request, type ApiResponse, type CallOptions } from '../helpers/emulator.js';
import { startReceiver, type Behaviour, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';
import { ok } from '../helpers/api-response.js';

const SECRET = 'whsec_crash_test_0123456789';
const dir = tempDir('svc-crash-');

const processes: LiveCli[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.stop('SIGKILL')));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function receiver(behaviour?: Behaviour): Promise<Receiver> {
  const r = await startReceiver(behaviour);
  receivers.push(r);
  return r;
}

interface Dev {
  p: LiveCli;
  ready: { baseUrl: string; test: { partnerKey: string; merchantKey: string; merchantId: string } };
  call<T = any>(method: string, p: string, options?: CallOptions): Promise<ApiResponse<T>>;
}

async function dev(db: string, cwd = dir): Promise<Dev> {
  const p = spawnCli(['dev', '--json', '--port', '0', '--db', db], { cwd });
  processes.push(p);
  const ready = JSON.parse(await p.waitForLine((l) => l.startsWith('{"type":"ready"'), 20_000));
  return { p, ready, call: (method, route, options) => request(ready.baseUrl, method, route, options) };
}

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

async function deliveries(d: Dev): Promise<any[]> {
  const body = ok(await d.call('GET', '/v1/partner/webhook/deliveries?limit=100', { key: d.ready.test.partnerKey }));
  expect(body.hasMore).toBe(false);
  return body.data;
}

async function invoice(d: Dev, amount: string): Promise<string> {
  return ok(await d.call('POST', '/v1/invoices', { key: d.ready.test.merchantKey, idempotencyKey: ikey(), body: { amount } }), 201).id;
}

async function pay(d: Dev, id: string, body: Record<string, unknown> = {}): Promise<any> {
  return ok(await d.call('POST', `/v1/test_helpers/invoices/${id}/payments`, { key: d.ready.test.merchantKey, body }), 201);
}

async function configure(d: Dev, url: string): Promise<void> {
  ok(await d.call('PUT', '/v1/partner/webhook', { key: d.ready.test.partnerKey, body: { url, secret: SECRET } }));
}

const envelopeOf = (r: ReceivedRequest): any => JSON.parse(r.rawBody);
const seqRange = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** Every request verifies under the secret; returns the envelope ids. */
function verifiedIds(requests: readonly ReceivedRequest[]): string[] {
  return requests.map((r) => {
    const envelope = verifyWebhook(r.rawBody, r.headers['x-service-signature'] as string, SECRET);
    expect(envelope.id).toBe(`${envelope.data.invoiceId}-${envelope.data.sequence}`);
    return envelope.id;
  });
}

describe('svc dev crash safety', () => {
  it('SIGKILL with deliveries pending and retrying: after a restart and a clock advance every event of every invoice arrives, with no gap', async () => {
    const db = path.join(dir, 'kill-retrying.sqlite');
    // Events of the 12.00 invoice hang (in flight at the kill); every other attempt fails with 500.
    const r = await receiver((q) => (envelopeOf(q).data.amount === '12.00' ? 'hang' : { status: 500, body: 'down' }));
    const first = await dev(db);
    await configure(first, `${r.url}/hooks`);

    // Five invoices with every kind of event; the number of events each one has.
    const events = new Map<string, number>();
    const a = await invoice(first, '10.00');
    await pay(first, a); // created, paid
    events.set(a, 2);
    const b = await invoice(first, '10.00');
    await pay(first, b, { amount: '4.00' });
    await pay(first, b); // created, partially_paid, paid
    events.set(b, 3);
    const c = await invoice(first, '10.00');
    const detected = await pay(first, c, { confirmed: false });
    ok(await first.call('POST', `/v1/test_helpers/invoices/${c}/payments/${detected.payment.id}/confirm`, { key: first.ready.test.merchantKey }));
    events.set(c, 3); // created, payment_detected, paid
    const d = await invoice(first, '10.00');
    ok(await first.call('POST', `/v1/test_helpers/invoices/${d}/expire`, { key: first.ready.test.merchantKey }));
    events.set(d, 2); // created, expired
    const e = await invoice(first, '12.00');
    await pay(first, e, { amount: '15.00' });
    events.set(e, 3); // created, paid, overpaid
    const total = [...events.values()].reduce((s, n) => s + n, 0);

    // Kill it once the first attempts have failed (retrying) or hang (pending, in flight).
    await r.waitFor(total);
    const before = await waitUntil('the failed attempts written', async () => {
      const list = await deliveries(first);
      return list.filter((x) => x.status === 'retrying').length === total - 3 ? list : undefined;
    });
    expect(before).toHaveLength(total);
    expect(before.filter((x) => x.invoiceId === e).map((x) => [x.status, x.attemptCount])).toEqual([
      ['pending', 0],
      ['pending', 0],
      ['pending', 0],
    ]);
    expect(before.filter((x) => x.status === 'succeeded')).toEqual([]);
    await first.p.stop('SIGKILL');
    expect(first.p.child.signalCode).toBe('SIGKILL');

    // The killed process sends nothing more: every request from here on is answered 200.
    r.respond({ status: 200, body: 'ok' });
    const answeredOkFrom = r.requests.length;
    const second = await dev(db);
    expect(second.ready.test).toEqual(first.ready.test);
    const advanced = ok(await second.call('POST', '/__emulator/clock/advance', { body: { seconds: 86400 } }));
    expect(advanced.advancedSeconds).toBe(86400);

    const after = await waitUntil('every delivery succeeded', async () => {
      const list = await deliveries(second);
      return list.length === total && list.every((x) => x.status === 'succeeded') ? list : undefined;
    });
    // One delivery per event, no event missing: the ids of each invoice are <id>-1 … <id>-N.
    for (const [id, n] of events) {
      const seqs = after
        .filter((x) => x.invoiceId === id)
        .map((x) => Number(x.eventId.slice(37)))
        .sort((p, q) => p - q);
      expect(seqs, `deliveries of ${id}`).toEqual(seqRange(n));
    }
    // Every request the receiver ever got is a signed event of these invoices…
    const allIds = verifiedIds(r.requests);
    for (const id of allIds) expect(events.has(id.slice(0, 36)), id).toBe(true);
    // …and each event was answered 200 at least once, in full sequence per invoice.
    const okIds = new Set(verifiedIds(r.requests.slice(answeredOkFrom)));
    for (const [id, n] of events) {
      const received = [...okIds]
        .filter((x) => x.startsWith(`${id}-`))
        .map((x) => Number(x.slice(37)))
        .sort((p, q) => p - q);
      expect(received, `events of ${id} received`).toEqual(seqRange(n));
    }
    for (const x of after) {
      const full = ok(await second.call('GET', `/v1/partner/webhook/deliveries/${x.id}`, { key: second.ready.test.partnerKey }));
      expect(full.attempts.at(-1)).toMatchObject({ responseStatus: 200, error: null });
      // The body that arrived is the stored payload.
      expect(r.requests.some((q) => q.rawBody === full.payload)).toBe(true);
    }
    // The last event of each invoice carries its final status.
    for (const [id, n] of events) {
      const inv = ok(await second.call('GET', `/v1/invoices/${id}`, { key: second.ready.test.merchantKey }));
      const last = r.requests.map(envelopeOf).find((x) => x.id === `${id}-${n}`);
      expect(last.data.status).toBe(inv.status);
    }
  }, 60_000);

  it('SIGKILL while attempts are in flight: after a restart those deliveries are attempted again, without any clock advance', async () => {
    const db = path.join(dir, 'kill-in-flight.sqlite');
    const r = await receiver('hang');
    const first = await dev(db);
    await configure(first, r.url);
    const ids = [await invoice(first, '1.00'), await invoice(first, '2.00'), await invoice(first, '3.00')];
    // All three attempts are in flight: the receiver holds them.
    const hung = await r.waitFor(3);
    expect(new Set(verifiedIds(hung))).toEqual(new Set(ids.map((id) => `${id}-1`)));
    const before = await deliveries(first);
    expect(before.map((x) => [x.status, x.attemptCount])).toEqual([
      ['pending', 0],
      ['pending', 0],
      ['pending', 0],
    ]);
    await first.p.stop('SIGKILL');

    r.respond({ status: 200 });
    const second = await dev(db);
    const again = await r.waitFor(6, 10_000);
    expect(new Set(verifiedIds(again.slice(3)))).toEqual(new Set(ids.map((id) => `${id}-1`)));
    const after = await waitUntil('every delivery succeeded', async () => {
      const list = await deliveries(second);
      return list.every((x) => x.status === 'succeeded') ? list : undefined;
    });
    expect(after).toHaveLength(3);
    for (const x of after) {
      const full = ok(await second.call('GET', `/v1/partner/webhook/deliveries/${x.id}`, { key: second.ready.test.partnerKey }));
      expect(full.attempts.at(-1)).toMatchObject({ trigger: 'scheduled', responseStatus: 200, error: null });
    }
    // Nobody moved the clock.
    expect(ok(await second.call('GET', '/__emulator/clock')).offsetSeconds).toBe(0);
  }, 60_000);

  it('SIGTERM with deliveries retrying and in flight: after a restart the due ones resume without any clock advance', async () => {
    const cwd = path.join(dir, 'graceful');
    fs.mkdirSync(cwd, { recursive: true });
    // The hanging attempt's timeout (60 s) outlasts the test: a stop that waited for it would time the
    // test out, so no wall-clock bound on the stop is needed (issue 23).
    fs.writeFileSync(path.join(cwd, '.svcrc.json'), JSON.stringify({ webhooks: { retrySchedule: ['2s', '1h'], timeout: '60s' } }));
    const db = path.join(cwd, 'graceful.sqlite');
    // The 7.00 invoice's event hangs (in flight at the stop); the others fail and wait 2 s to retry.
    const r = await receiver((q) => (envelopeOf(q).data.amount === '7.00' ? 'hang' : { status: 500 }));
    const first = await dev(db, cwd);
    await configure(first, r.url);
    const failing = [await invoice(first, '1.00'), await invoice(first, '2.00')];
    const hanging = await invoice(first, '7.00');
    await r.waitFor(3);
    const before = await waitUntil('the failed attempts written', async () => {
      const list = await deliveries(first);
      return list.filter((x) => x.status === 'retrying').length === 2 ? list : undefined;
    });
    expect(before.find((x) => x.invoiceId === hanging)).toMatchObject({ status: 'pending', attemptCount: 0 });
    expect(before.filter((x) => x.status === 'succeeded')).toEqual([]);

    expect(await first.p.stop('SIGTERM')).toBe(0);
    expect(JSON.parse(first.p.lines.at(-1)!)).toEqual({ type: 'stopped', signal: 'SIGTERM' });

    // Let the retries fall due while the emulator is down (its clock is the wall clock: no offset).
    const due = Math.max(...before.filter((x) => x.status === 'retrying').map((x) => Date.parse(x.nextAttemptAt)));
    await sleep(Math.max(0, due - Date.now()) + 200);
    r.respond({ status: 200 });
    const requestsBefore = r.requests.length;

    const second = await dev(db, cwd);
    const resumed = await r.waitFor(requestsBefore + 3, 10_000);
    expect(new Set(verifiedIds(resumed.slice(requestsBefore)))).toEqual(new Set([...failing, hanging].map((id) => `${id}-1`)));
    const after = await waitUntil('every delivery succeeded', async () => {
      const list = await deliveries(second);
      return list.every((x) => x.status === 'succeeded') ? list : undefined;
    });
    expect(after).toHaveLength(3);
    for (const id of failing) {
      const x = after.find((y) => y.invoiceId === id);
      const full = ok(await second.call('GET', `/v1/partner/webhook/deliveries/${x.id}`, { key: second.ready.test.partnerKey }));
      expect(full.attempts.map((a: any) => a.responseStatus)).toEqual([500, 200]);
    }
    expect(ok(await second.call('GET', '/__emulator/clock')).offsetSeconds).toBe(0);
  }, 60_000);
});
