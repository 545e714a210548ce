/**
 * Webhook delivery end to end (CONTRACT §5, interface §2.4 and §6): real emulators on port 0 with
 * in-memory SQLite, real local receivers over real HTTP. Signatures and headers, the envelope,
 * the retry schedule on a manual emulator clock, failure classification per attempt, resend, the
 * deliveries API, disabled configurations, isolation of a dead receiver, and the live-environment
 * address guard at delivery time (DNS rebinding).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, systemClock } from '../../src/clock/clock.js';
import { defaultConfig, type EmulatorConfig } from '../../src/config/defaults.js';
import type { StartEmulatorOptions } from '../../src/server/start.js';
import { verifyWebhook, WebhookVerificationError } from '../../src/webhooks/signature.js';
import type { ClientInput } from '../../src/client/typed.js';
import { dataOf, expectRefused } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Behaviour, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const SECRET = 'whsec_delivery_test_0123456789';
const T0 = Date.UTC(2030, 0, 1);
const STANDARD = [5, 300, 1800, 7200, 18000, 36000, 36000];

const emulators: TestEmulator[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await Promise.all(emulators.splice(0).map((e) => e.stop()));
});

/** An emulator on a manual clock at T0 unless told otherwise; `webhooks` may be given partially. */
async function emulator(
  options: Omit<StartEmulatorOptions, 'config'> & {
    config?: Omit<Partial<EmulatorConfig>, 'webhooks'> & { webhooks?: Partial<EmulatorConfig['webhooks']> };
  } = {},
): Promise<TestEmulator> {
  const { config = {}, ...rest } = options;
  const webhooks = { ...defaultConfig().webhooks, ...config.webhooks };
  const emu = await startTestEmulator({ clock: manualClock(T0), ...rest, config: { ...config, webhooks } });
  emulators.push(emu);
  return emu;
}

async function receiver(behaviour?: Behaviour): Promise<Receiver> {
  const r = await startReceiver(behaviour);
  receivers.push(r);
  return r;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(15);
  }
}

// Through the typed client as users call it; `key` picks the partner or environment each call acts as.
async function putWebhook(emu: TestEmulator, key: string, body: ClientInput<'putWebhook'>['body']) {
  return dataOf(await emu.client.test.putWebhook({ key, body }));
}

async function merchantInvoice(emu: TestEmulator, key: string, amount = '10.00') {
  return dataOf(await emu.client.test.createInvoice({ key, idempotencyKey: ikey(), body: { amount } }), 201);
}

async function partnerInvoice(emu: TestEmulator, key: string, merchantId: string, amount = '10.00') {
  return dataOf(await emu.client.test.createPartnerInvoice({ key, idempotencyKey: ikey(), body: { merchantId, amount } }), 201);
}

async function createMerchant(emu: TestEmulator, partnerKey: string, externalTenantId: string) {
  const body = { externalTenantId, email: `${externalTenantId}@example.com`, name: `Shop ${externalTenantId}` };
  return dataOf(await emu.client.test.createMerchant({ key: partnerKey, idempotencyKey: ikey(), body }), 201);
}

async function pay(emu: TestEmulator, key: string, invoiceId: string, body: ClientInput<'createTestPayment'>['body'] = {}) {
  return dataOf(await emu.client.test.createTestPayment({ key, params: { id: invoiceId }, body }), 201);
}

type DeliveryQuery = ClientInput<'listDeliveries'>['query'];
async function list(emu: TestEmulator, key: string, query: DeliveryQuery = {}) {
  return dataOf(await emu.client.test.listDeliveries({ key, query }));
}

async function detail(emu: TestEmulator, key: string, id: string) {
  return dataOf(await emu.client.test.getDelivery({ key, params: { id } }));
}

async function resend(emu: TestEmulator, key: string, id: string) {
  return emu.client.test.resendDelivery({ key, params: { id } });
}

/** The delivery of one event (there is one target, the partner's webhook). */
async function deliveryOf(emu: TestEmulator, key: string, eventId: string): Promise<any> {
  const { data } = await list(emu, key, { invoiceId: eventId.slice(0, 36), limit: 100 });
  const found = data.filter((d) => d.eventId === eventId);
  expect(found, `deliveries of ${eventId}`).toHaveLength(1);
  return found[0];
}

/** Waits until the delivery has at least `attempts` attempts written, and returns its detail. */
async function attempted(emu: TestEmulator, key: string, eventId: string, attempts = 1): Promise<any> {
  const { id } = await waitUntil(`a delivery of ${eventId}`, async () =>
    (await list(emu, key, { invoiceId: eventId.slice(0, 36), limit: 100 })).data.find((d) => d.eventId === eventId),
  );
  return waitUntil(`${attempts} attempt(s) of ${eventId}`, async () => {
    const d = await detail(emu, key, id);
    return d.attemptCount >= attempts ? d : undefined;
  });
}

const envelopeOf = (r: ReceivedRequest): any => JSON.parse(r.rawBody);
const requestsFor = (r: Receiver, eventId: string) => r.requests.filter((q) => envelopeOf(q).id === eventId);
const iso = (ms: number) => new Date(ms).toISOString();
const header = (r: ReceivedRequest, name: string): string => {
  const v = r.headers[name.toLowerCase()];
  expect(typeof v, `header ${name}`).toBe('string');
  return v as string;
};

/** Our own verification, written against the interface document §6.3 with node:crypto only. */
function verifyByHand(r: ReceivedRequest, secret: string): number {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header(r, 'x-service-signature'));
  expect(m, header(r, 'x-service-signature')).not.toBeNull();
  const t = m![1]!;
  const expected = createHmac('sha256', secret).update(`${t}.${r.rawBody}`, 'utf8').digest();
  expect(timingSafeEqual(Buffer.from(m![2]!, 'hex'), expected), 'HMAC-SHA256 over "{t}.{rawBody}"').toBe(true);
  return Number(t);
}

/** `t` of the signature header, without verifying. */
const signatureT = (r: ReceivedRequest) => Number(/^t=(\d+),/.exec(header(r, 'x-service-signature'))![1]);

// ---------------------------------------------------------------------------------------------

describe('signatures, headers and body', () => {
  it('signs every delivery so that verifyWebhook and a hand-written HMAC both accept it; t is wall-clock time, createdAt emulator time', async () => {
    const emu = await emulator();
    const r = await receiver();
    const { test } = emu.keys;
    const customHeaders = { 'X-Tenant': 'tenant-7', 'X-Trace-Origin': 'svc tests' };
    await putWebhook(emu, test.partnerKey, { url: `${r.url}/hooks?src=svc`, secret: SECRET, customHeaders });

    // A day of emulator time passes; the wall clock does not.
    await emu.advanceClock(86400);
    const wallBefore = Math.floor(Date.now() / 1000);
    const invoice = await merchantInvoice(emu, test.merchantKey);
    await pay(emu, test.merchantKey, invoice.id);
    const got = await r.waitFor(2);
    const wallAfter = Math.ceil(Date.now() / 1000);

    expect(got.map((q) => envelopeOf(q).id).sort()).toEqual([`${invoice.id}-1`, `${invoice.id}-2`]);
    for (const q of got) {
      expect(q.method).toBe('POST');
      expect(q.path).toBe('/hooks?src=svc');
      expect(header(q, 'content-type')).toBe('application/json');
      expect(header(q, 'user-agent')).toBe(`svc-emulator/${VERSION}`);
      expect(header(q, 'x-tenant')).toBe('tenant-7');
      expect(header(q, 'x-trace-origin')).toBe('svc tests');

      const t = verifyByHand(q, SECRET);
      expect(t).toBeGreaterThanOrEqual(wallBefore);
      expect(t).toBeLessThanOrEqual(wallAfter);
      const parsed = verifyWebhook(q.rawBody, header(q, 'x-service-signature'), SECRET);
      expect(parsed).toEqual(JSON.parse(q.rawBody));
      // The checks can fail: another secret, or one changed byte, is rejected.
      expect(() => verifyWebhook(q.rawBody, header(q, 'x-service-signature'), 'another-secret-0123456789')).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook(q.rawBody.replace('"test"', '"live"'), header(q, 'x-service-signature'), SECRET)).toThrow(/does not match/);

      // createdAt is emulator time (T0 + 1 day), t is not.
      const envelope = envelopeOf(q);
      expect(envelope.createdAt).toBe(iso(T0 + 86400_000));
      expect(Math.abs(t * 1000 - Date.parse(envelope.createdAt))).toBeGreaterThan(86400_000);

      // The body is byte-for-byte the stored payload.
      const d = await attempted(emu, test.partnerKey, envelope.id);
      expect(q.rawBody).toBe(d.payload);
      expect(Buffer.byteLength(q.rawBody)).toBe(Number(header(q, 'content-length')));
    }
  });

  it('sends the envelope of interface §2.4: id <invoiceId>-<sequence>, partner fields, data in that shape', async () => {
    const emu = await emulator();
    const r = await receiver();
    const { test, partnerId } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    const merchant = await createMerchant(emu, test.partnerKey, 'tenant-envelope');
    const invoice = await partnerInvoice(emu, test.partnerKey, merchant.merchantId, '25.50');
    await pay(emu, test.partnerKey, invoice.id, { amount: '5.5' });
    await pay(emu, test.partnerKey, invoice.id, { amount: '20.00' });
    const got = await r.waitFor(3);
    const envelopes = got.map(envelopeOf).sort((a, b) => a.data.sequence - b.data.sequence);

    const expected = [
      { type: 'invoice.created', status: 'CREATED', amountReceived: '0.00', token: null },
      { type: 'invoice.partially_paid', status: 'PARTIALLY_PAID', amountReceived: '5.50', token: 'USDC' },
      { type: 'invoice.paid', status: 'PAID', amountReceived: '25.50', token: 'USDC' },
    ];
    envelopes.forEach((e, i) => {
      const sequence = i + 1;
      expect(Object.keys(e)).toEqual(['id', 'type', 'createdAt', 'environment', 'partnerId', 'data']);
      expect(Object.keys(e.data)).toEqual(['invoiceId', 'merchantId', 'externalTenantId', 'status', 'amount', 'amountReceived', 'token', 'sequence']);
      expect(e).toEqual({
        id: `${invoice.id}-${sequence}`,
        type: expected[i]!.type,
        createdAt: iso(T0),
        environment: 'test',
        partnerId,
        data: {
          invoiceId: invoice.id,
          merchantId: merchant.merchantId,
          externalTenantId: 'tenant-envelope',
          status: expected[i]!.status,
          amount: '25.50',
          amountReceived: expected[i]!.amountReceived,
          token: expected[i]!.token,
          sequence,
        },
      });
    });
  });
});

describe('retries on the emulator clock', () => {
  it('follows the standard schedule exactly (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then fails for good', async () => {
    const emu = await emulator({ config: { invoiceLifetimeSeconds: 400 * 86400 } });
    const r = await receiver({ status: 500, body: 'down for maintenance' });
    const { test } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    const invoice = await merchantInvoice(emu, test.merchantKey);
    const eventId = `${invoice.id}-1`;

    let d = await attempted(emu, test.partnerKey, eventId, 1);
    const offsets = [0];
    for (const gap of STANDARD) offsets.push(offsets.at(-1)! + gap);
    expect(offsets).toEqual([0, 5, 305, 2105, 9305, 27305, 63305, 99305]);

    for (let k = 1; k < offsets.length; k++) {
      expect(d.status).toBe('retrying');
      expect(d.attemptCount).toBe(k);
      expect(d.nextAttemptAt).toBe(iso(T0 + offsets[k]! * 1000));
      // One second short of the retry: nothing happens.
      await emu.advanceClock(offsets[k]! - offsets[k - 1]! - 1);
      d = await detail(emu, test.partnerKey, d.id);
      expect(d.attemptCount, `no attempt before +${offsets[k]} s`).toBe(k);
      expect(requestsFor(r, eventId)).toHaveLength(k);
      // Its time comes: exactly one attempt, stamped at that instant.
      await emu.advanceClock(1);
      d = await detail(emu, test.partnerKey, d.id);
      expect(d.attemptCount, `attempt at +${offsets[k]} s`).toBe(k + 1);
      expect(requestsFor(r, eventId)).toHaveLength(k + 1);
    }

    expect(d.attempts.map((a: any) => a.startedAt)).toEqual(offsets.map((s) => iso(T0 + s * 1000)));
    expect(d.attempts.map((a: any) => a.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(d.attempts.every((a: any) => a.trigger === 'scheduled' && a.responseStatus === 500 && a.responseBody === 'down for maintenance')).toBe(true);
    expect(d).toMatchObject({ status: 'failed', nextAttemptAt: null, attemptCount: 8, lastResponseStatus: 500, lastAttemptAt: iso(T0 + 99305_000) });
    expect(d.lastError).toBe('http_status: 500 Internal Server Error');

    // However far the clock moves, a failed delivery is not attempted again.
    await emu.advanceClock(30 * 86400);
    d = await detail(emu, test.partnerKey, d.id);
    expect(d.attemptCount).toBe(8);
    expect(d.status).toBe('failed');
    expect(requestsFor(r, eventId)).toHaveLength(8);
  });

  it('follows a shorter schedule from the config ([1, 2]): attempts at +0, +1 s, +3 s, then failed; a later resend that succeeds marks it succeeded', async () => {
    const emu = await emulator({ config: { webhooks: { retrySchedule: [1, 2] } } });
    const r = await receiver({ status: 502 });
    const { test } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    const invoice = await merchantInvoice(emu, test.merchantKey);
    const eventId = `${invoice.id}-1`;
    let d = await attempted(emu, test.partnerKey, eventId, 1);
    expect(d.nextAttemptAt).toBe(iso(T0 + 1000));

    await emu.advanceClock(0.5);
    expect((await detail(emu, test.partnerKey, d.id)).attemptCount).toBe(1);
    await emu.advanceClock(0.5);
    d = await detail(emu, test.partnerKey, d.id);
    expect(d.attemptCount).toBe(2);
    expect(d.nextAttemptAt).toBe(iso(T0 + 3000));
    await emu.advanceClock(1.5);
    expect((await detail(emu, test.partnerKey, d.id)).attemptCount).toBe(2);
    await emu.advanceClock(0.5);
    d = await detail(emu, test.partnerKey, d.id);
    expect(d.attempts.map((a: any) => a.startedAt)).toEqual([iso(T0), iso(T0 + 1000), iso(T0 + 3000)]);
    expect(d).toMatchObject({ status: 'failed', nextAttemptAt: null, attemptCount: 3, lastResponseStatus: 502 });

    await emu.advanceClock(86400);
    expect((await detail(emu, test.partnerKey, d.id)).attemptCount).toBe(3);
    expect(requestsFor(r, eventId)).toHaveLength(3);

    // The schedule is over: a successful manual resend records the success and schedules nothing.
    r.respond({ status: 200 });
    const resent = dataOf(await resend(emu, test.partnerKey, d.id));
    expect(resent).toMatchObject({ status: 'succeeded', attemptCount: 4, nextAttemptAt: null, lastResponseStatus: 200, lastError: null });
    expect(resent.attempts.at(-1)).toMatchObject({ number: 4, trigger: 'manual', responseStatus: 200, error: null });
    await emu.advanceClock(86400);
    expect((await detail(emu, test.partnerKey, d.id)).attemptCount).toBe(4);
    expect(requestsFor(r, eventId)).toHaveLength(4);
  });

  it('with the real (flowing) clock, a failed delivery is retried on its own when its time comes, without any advance', async () => {
    // `svc dev` runs on this clock: retries must fire in real time, not only on clock/advance.
    const emu = await emulator({ clock: systemClock(), config: { webhooks: { retrySchedule: [1, 1] } } });
    const r = await receiver((_req, n) => (n === 1 ? { status: 500 } : { status: 200 }));
    const { test } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    const invoice = await merchantInvoice(emu, test.merchantKey);
    const first = await attempted(emu, test.partnerKey, `${invoice.id}-1`, 1);
    expect(first).toMatchObject({ status: 'retrying', lastResponseStatus: 500 });
    const got = await r.waitFor(2, 30_000);
    expect(got[1]!.receivedAt - got[0]!.receivedAt).toBeGreaterThanOrEqual(900);
    const done = await attempted(emu, test.partnerKey, `${invoice.id}-1`, 2);
    expect(done).toMatchObject({ status: 'succeeded', attemptCount: 2, nextAttemptAt: null });
  });

  it('a receiver that fails 3 times then succeeds gets the event exactly 4 times; the delivery ends succeeded with 4 attempts', async () => {
    const emu = await emulator();
    const N = 3;
    const r = await receiver((_req, n) => (n <= N ? { status: 500, body: `fail ${n}` } : { status: 200, body: 'thanks' }));
    const { test } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    const invoice = await merchantInvoice(emu, test.merchantKey);
    const eventId = `${invoice.id}-1`;
    await attempted(emu, test.partnerKey, eventId, 1);

    await emu.advanceClock(5 + 300 + 1800);
    // Far past every other retry time (the invoice expires too, which is another event).
    await emu.advanceClock(2 * 86400);
    const d = await deliveryOf(emu, test.partnerKey, eventId);
    const full = await detail(emu, test.partnerKey, d.id);
    expect(requestsFor(r, eventId)).toHaveLength(N + 1);
    expect(full).toMatchObject({ status: 'succeeded', attemptCount: N + 1, nextAttemptAt: null, lastResponseStatus: 200, lastError: null });
    expect(full.attempts.map((a: any) => [a.responseStatus, a.responseBody])).toEqual([
      [500, 'fail 1'],
      [500, 'fail 2'],
      [500, 'fail 3'],
      [200, 'thanks'],
    ]);
    expect(full.attempts.map((a: any) => a.startedAt)).toEqual([iso(T0), iso(T0 + 5000), iso(T0 + 305_000), iso(T0 + 2105_000)]);
    // Every copy carries the same envelope, byte for byte.
    expect(new Set(requestsFor(r, eventId).map((q) => q.rawBody)).size).toBe(1);
  });
});

describe('failure classification per attempt', () => {
  it('records lastError and lastResponseStatus for timeout, refused, redirect, 4xx, 5xx and reset', async () => {
    const emu = await emulator({ config: { webhooks: { timeoutMs: 300 } } });
    const { test } = emu.keys;
    const redirectTarget = await receiver();
    const closed = await startReceiver();
    await closed.close();
    const big = 'x'.repeat(10_000);

    const cases: {
      name: string;
      url: (r: Receiver | null) => string;
      behaviour?: Behaviour;
      status: number | null;
      error: RegExp;
      body: string | null;
    }[] = [
      { name: 'timeout', behaviour: 'hang', url: (r) => r!.url, status: null, error: /^timeout: .*300 ms/, body: null },
      { name: 'timeout mid-body', behaviour: 'stall-body', url: (r) => r!.url, status: 200, error: /^timeout: /, body: 'partial body, the rest never comes' },
      {
        name: 'refused',
        url: () => `${closed.url}/hook`,
        status: null,
        error: new RegExp(`^connection_refused: .*127\\.0\\.0\\.1:${closed.port}`),
        body: null,
      },
      {
        name: '3xx',
        behaviour: { redirect: `${redirectTarget.url}/elsewhere` },
        url: (r) => r!.url,
        status: 302,
        error: new RegExp(`^redirect: 302 to ${redirectTarget.url}/elsewhere`),
        body: '',
      },
      {
        name: '4xx',
        behaviour: { status: 404, body: 'no such hook' },
        url: (r) => r!.url,
        status: 404,
        error: /^http_status: 404 Not Found$/,
        body: 'no such hook',
      },
      {
        name: '5xx',
        behaviour: { status: 503, body: big },
        url: (r) => r!.url,
        status: 503,
        error: /^http_status: 503 Service Unavailable$/,
        body: big.slice(0, 4096),
      },
      { name: 'reset', behaviour: 'reset', url: (r) => r!.url, status: null, error: /^connection_reset: /, body: null },
    ];

    let first = true;
    for (const c of cases) {
      const r = c.behaviour === undefined ? null : await receiver(c.behaviour);
      await putWebhook(emu, test.partnerKey, first ? { url: c.url(r), secret: SECRET } : { url: c.url(r) });
      first = false;
      const invoice = await merchantInvoice(emu, test.merchantKey);
      const d = await attempted(emu, test.partnerKey, `${invoice.id}-1`, 1);
      expect(d.status, c.name).toBe('retrying');
      expect(d.lastResponseStatus, c.name).toBe(c.status);
      expect(d.lastError, c.name).toMatch(c.error);
      expect(d.url, c.name).toBe(c.url(r));
      const [a] = d.attempts;
      expect(a, c.name).toMatchObject({ number: 1, trigger: 'scheduled', responseStatus: c.status, responseBody: c.body, error: d.lastError });
      expect(a.responseBody === null || Buffer.byteLength(a.responseBody) <= 4096, c.name).toBe(true);
      if (c.name.startsWith('timeout')) {
        expect(a.durationMs, c.name).toBeGreaterThanOrEqual(250);
        expect(a.durationMs, c.name).toBeLessThan(3000);
      }
      if (r) expect(r.requests, c.name).toHaveLength(1);
    }
    // Redirects are never followed.
    await sleep(50);
    expect(redirectTarget.requests).toHaveLength(0);
  });
});

describe('resend', () => {
  it('sends the same envelope now with a fresh signature, trigger manual; its success ends the delivery and cancels the automatic retries', async () => {
    const emu = await emulator();
    const r = await receiver({ status: 500, body: 'nope' });
    const { test } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    const invoice = await merchantInvoice(emu, test.merchantKey);
    const eventId = `${invoice.id}-1`;
    const before = await attempted(emu, test.partnerKey, eventId, 1);
    expect(before).toMatchObject({ status: 'retrying', attemptCount: 1, nextAttemptAt: iso(T0 + 5000) });
    const firstT = signatureT(r.requests[0]!);

    // Let the wall clock reach the next second, so the fresh signature has a later t.
    await sleep(1000 - (Date.now() % 1000) + 20);
    r.respond({ status: 200, body: 'got it' });
    const wallBefore = Math.floor(Date.now() / 1000);
    const res = await resend(emu, test.partnerKey, before.id);
    const wallAfter = Math.ceil(Date.now() / 1000);
    const resent = dataOf(res);
    expect(resent).toMatchObject({
      id: before.id,
      eventId,
      status: 'succeeded',
      attemptCount: 2,
      nextAttemptAt: null,
      lastResponseStatus: 200,
      lastError: null,
      payload: before.payload,
    });
    expect(resent.attempts.map((a: any) => a.trigger)).toEqual(['scheduled', 'manual']);
    expect(resent.attempts[1]).toMatchObject({ number: 2, startedAt: iso(T0), responseStatus: 200, responseBody: 'got it', error: null });

    expect(r.requests).toHaveLength(2);
    const [orig, again] = r.requests as [ReceivedRequest, ReceivedRequest];
    expect(envelopeOf(again).id).toBe(eventId);
    expect(again.rawBody).toBe(orig.rawBody);
    expect(header(again, 'x-service-signature')).not.toBe(header(orig, 'x-service-signature'));
    const t = verifyByHand(again, SECRET);
    expect(t).toBeGreaterThan(firstT);
    // Wall-clock time of the resend: between the wall times read around it (no fixed allowance, issue 23).
    expect(t).toBeGreaterThanOrEqual(wallBefore);
    expect(t).toBeLessThanOrEqual(wallAfter);
    expect(verifyWebhook(again.rawBody, header(again, 'x-service-signature'), SECRET).id).toBe(eventId);

    // The automatic retry that was due at +5 s never comes: the receiver has the event once more, not twice.
    await emu.advanceClock(86400);
    const after = await detail(emu, test.partnerKey, before.id);
    expect(after).toMatchObject({ status: 'succeeded', attemptCount: 2, nextAttemptAt: null });
    expect(requestsFor(r, eventId)).toHaveLength(2);
    expect((await list(emu, test.partnerKey, { status: 'retrying' })).data).toEqual([]);
  });

  it('a manual attempt that fails leaves the schedule as it was', async () => {
    const emu = await emulator();
    const r = await receiver({ status: 500 });
    const { test } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    const invoice = await merchantInvoice(emu, test.merchantKey);
    const before = await attempted(emu, test.partnerKey, `${invoice.id}-1`, 1);
    const resent = dataOf(await resend(emu, test.partnerKey, before.id));
    expect(resent).toMatchObject({ status: 'retrying', attemptCount: 2, nextAttemptAt: iso(T0 + 5000), lastResponseStatus: 500 });
    await emu.advanceClock(4);
    expect((await detail(emu, test.partnerKey, before.id)).attemptCount).toBe(2);
    await emu.advanceClock(1);
    const after = await detail(emu, test.partnerKey, before.id);
    expect(after.attempts.map((a: any) => [a.trigger, a.startedAt])).toEqual([
      ['scheduled', iso(T0)],
      ['manual', iso(T0)],
      ['scheduled', iso(T0 + 5000)],
    ]);
    // The second scheduled attempt was the schedule's first retry: the next one is 5 min later.
    expect(after).toMatchObject({ status: 'retrying', attemptCount: 3, nextAttemptAt: iso(T0 + 5000 + 300_000) });
  });

  it('a scheduled attempt still in flight when a manual one succeeds cannot demote the delivery', async () => {
    const emu = await emulator();
    // 1st (scheduled): 500. 2nd (the scheduled retry): 500, but slowly. 3rd (manual, meanwhile): 200.
    const r = await receiver((_req, n) => (n === 2 ? { status: 500, delayMs: 600 } : n === 1 ? { status: 500 } : { status: 200 }));
    const { test } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    const invoice = await merchantInvoice(emu, test.merchantKey);
    const eventId = `${invoice.id}-1`;
    const before = await attempted(emu, test.partnerKey, eventId, 1);

    const advancing = emu.advanceClock(5);
    await r.waitFor(2);
    const resent = dataOf(await resend(emu, test.partnerKey, before.id));
    expect(resent).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
    await advancing;

    const after = await detail(emu, test.partnerKey, before.id);
    expect(after.attempts.map((a: any) => [a.number, a.trigger, a.responseStatus])).toEqual([
      [1, 'scheduled', 500],
      [2, 'manual', 200],
      [3, 'scheduled', 500],
    ]);
    expect(after).toMatchObject({ status: 'succeeded', attemptCount: 3, nextAttemptAt: null });
    await emu.advanceClock(86400);
    expect(requestsFor(r, eventId)).toHaveLength(3);
  });

  it('uses the current URL, secret and headers; 409 webhook_disabled when disabled; 404 for unknown, foreign and live deliveries', async () => {
    // Every name resolves to loopback: a live delivery is then blocked at connect time, offline.
    const emu = await emulator({ lookup: async () => ['127.0.0.1'] });
    const r1 = await receiver({ status: 500 });
    const r2 = await receiver();
    const { test, live } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r1.url, secret: SECRET });
    const invoice = await merchantInvoice(emu, test.merchantKey);
    const d = await attempted(emu, test.partnerKey, `${invoice.id}-1`, 1);

    const newSecret = 'whsec_rotated_secret_987654321';
    await putWebhook(emu, test.partnerKey, { url: `${r2.url}/v2`, secret: newSecret, customHeaders: { 'X-Rotated': 'yes' } });
    const resent = dataOf(await resend(emu, test.partnerKey, d.id));
    expect(resent).toMatchObject({ url: `${r2.url}/v2`, attemptCount: 2, lastResponseStatus: 200 });
    expect(r1.requests).toHaveLength(1);
    expect(r2.requests).toHaveLength(1);
    const q = r2.requests[0]!;
    expect(q.path).toBe('/v2');
    expect(header(q, 'x-rotated')).toBe('yes');
    verifyByHand(q, newSecret);
    expect(() => verifyWebhook(q.rawBody, header(q, 'x-service-signature'), SECRET)).toThrow(WebhookVerificationError);

    // Disabled: 409, nothing sent, nothing recorded.
    await putWebhook(emu, test.partnerKey, { url: r2.url, enabled: false });
    expectRefused(await resend(emu, test.partnerKey, d.id), 409, 'webhook_disabled');
    expect((await detail(emu, test.partnerKey, d.id)).attemptCount).toBe(2);
    expect(r2.requests).toHaveLength(1);
    await putWebhook(emu, test.partnerKey, { url: r2.url, enabled: true });
    dataOf(await resend(emu, test.partnerKey, d.id));
    expect(r2.requests).toHaveLength(2);

    // Unknown.
    expectRefused(await resend(emu, test.partnerKey, randomUUID()), 404, 'delivery_not_found');
    // Another partner's.
    const other = dataOf(await emu.client.test.createPartner({ body: { name: 'Other' } }), 201);
    expectRefused(await resend(emu, other.test.partnerKey, d.id), 404, 'delivery_not_found');
    expectRefused(await emu.client.test.getDelivery({ key: other.test.partnerKey, params: { id: d.id } }), 404, 'delivery_not_found');
    // The same partner's live key does not see test deliveries, and back.
    expectRefused(await resend(emu, live.partnerKey, d.id), 404, 'delivery_not_found');
    await putWebhook(emu, live.partnerKey, { url: 'https://hooks.example.com/svc', secret: SECRET });
    const liveInvoice = await merchantInvoice(emu, live.merchantKey);
    const liveDelivery = await attempted(emu, live.partnerKey, `${liveInvoice.id}-1`, 1);
    expect(liveDelivery.environment).toBe('live');
    expectRefused(await resend(emu, test.partnerKey, liveDelivery.id), 404, 'delivery_not_found');
    expectRefused(await emu.client.test.getDelivery({ key: test.partnerKey, params: { id: liveDelivery.id } }), 404, 'delivery_not_found');
    expect(r2.requests).toHaveLength(2);
    expect((await detail(emu, test.partnerKey, d.id)).attemptCount).toBe(3);
  });
});

describe('deliveries API', () => {
  it('filters by status, eventType, invoiceId and merchantId, pages newest first, and isolates partners and environments', async () => {
    const emu = await emulator();
    // Invoices of 13.00 are refused, the rest accepted.
    const r = await receiver((q) => (envelopeOf(q).data.amount === '13.00' ? { status: 500 } : { status: 200 }));
    const { test, live } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    const m2 = (await createMerchant(emu, test.partnerKey, 'tenant-m2')).merchantId as string;

    const order: string[] = []; // event ids in the order the events happened
    const step = async (fn: () => Promise<unknown>, ...eventIds: string[]) => {
      await fn();
      order.push(...eventIds);
      await emu.advanceClock(1); // distinct createdAt per event (well under the first retry)
    };
    const i1 = await merchantInvoice(emu, test.merchantKey, '10.00');
    order.push(`${i1.id}-1`);
    await emu.advanceClock(1);
    const i2 = await partnerInvoice(emu, test.partnerKey, m2, '13.00');
    order.push(`${i2.id}-1`);
    await emu.advanceClock(1);
    await step(() => pay(emu, test.merchantKey, i1.id), `${i1.id}-2`);
    const i3 = await partnerInvoice(emu, test.partnerKey, m2, '20.00');
    order.push(`${i3.id}-1`);
    await emu.advanceClock(1);
    await step(() => pay(emu, test.partnerKey, i2.id), `${i2.id}-2`);
    await step(() => pay(emu, test.partnerKey, i3.id, { amount: '5.00' }), `${i3.id}-2`);
    const i4 = await merchantInvoice(emu, test.merchantKey, '13.00');
    order.push(`${i4.id}-1`);

    await waitUntil('every delivery attempted once', async () => {
      const { data } = await list(emu, test.partnerKey, { limit: 100 });
      return data.length === 7 && data.every((d) => d.attemptCount >= 1);
    });
    const newestFirst = [...order].reverse();
    const ids = async (query: DeliveryQuery) => (await list(emu, test.partnerKey, query)).data.map((d) => d.eventId);

    const all = await list(emu, test.partnerKey, { limit: 100 });
    expect(all.hasMore).toBe(false);
    expect(all.data.map((d) => d.eventId)).toEqual(newestFirst);
    const created = all.data.map((d) => Date.parse(d.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(new Set(created).size).toBeGreaterThan(1);
    for (const d of all.data) {
      expect(Object.keys(d).sort()).toEqual(
        [
          'id',
          'eventId',
          'eventType',
          'invoiceId',
          'merchantId',
          'environment',
          'url',
          'target',
          'status',
          'attemptCount',
          'lastAttemptAt',
          'nextAttemptAt',
          'lastResponseStatus',
          'lastError',
          'createdAt',
          'updatedAt',
        ].sort(),
      );
      expect(d.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(d.environment).toBe('test');
      expect(d.target).toBe('webhook');
    }

    const refused = [`${i4.id}-1`, `${i2.id}-2`, `${i2.id}-1`];
    expect(await ids({ status: 'retrying', limit: 100 })).toEqual(refused);
    expect(await ids({ status: 'succeeded', limit: 100 })).toEqual(newestFirst.filter((e) => !refused.includes(e)));
    expect(await ids({ status: 'pending' })).toEqual([]);
    expect(await ids({ status: 'failed' })).toEqual([]);
    expect(await ids({ eventType: 'invoice.paid' })).toEqual([`${i2.id}-2`, `${i1.id}-2`]);
    expect(await ids({ eventType: 'invoice.partially_paid' })).toEqual([`${i3.id}-2`]);
    expect(await ids({ invoiceId: i3.id })).toEqual([`${i3.id}-2`, `${i3.id}-1`]);
    expect(await ids({ merchantId: m2 })).toEqual(newestFirst.filter((e) => [i2.id, i3.id].includes(e.slice(0, 36))));
    expect(await ids({ merchantId: test.merchantId, status: 'retrying' })).toEqual([`${i4.id}-1`]);
    expect(await ids({ merchantId: m2, eventType: 'invoice.created' })).toEqual([`${i3.id}-1`, `${i2.id}-1`]);
    // @ts-expect-error: 'delivered' is not a delivery status, and the client's type says so; the emulator must refuse it too
    expectRefused(await emu.client.test.listDeliveries({ query: { status: 'delivered' } }), 400, 'validation_failed');

    // Walk every page.
    for (const [query, expected] of [
      [{ limit: 2 }, newestFirst],
      [{ limit: 1, status: 'succeeded' }, newestFirst.filter((e) => !refused.includes(e))],
      [{ limit: 3, merchantId: m2 }, newestFirst.filter((e) => [i2.id, i3.id].includes(e.slice(0, 36)))],
    ] as const) {
      const limit = query.limit;
      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      for (;;) {
        const p = await list(emu, test.partnerKey, { ...query, startingAfter: after });
        pages += 1;
        expect(p.data.length).toBeLessThanOrEqual(limit);
        seen.push(...p.data.map((d) => d.eventId));
        if (!p.hasMore) break;
        expect(p.data).toHaveLength(limit);
        after = p.data.at(-1)!.id;
      }
      expect(seen, JSON.stringify(query)).toEqual(expected);
      expect(pages, JSON.stringify(query)).toBe(Math.max(1, Math.ceil(expected.length / limit)));
    }

    // Isolation: another partner sees only its own; the live key sees none of the test deliveries.
    const other = dataOf(await emu.client.test.createPartner({ body: { name: 'Other partner' } }), 201);
    expect((await list(emu, other.test.partnerKey, { limit: 100 })).data).toEqual([]);
    const otherReceiver = await receiver();
    await putWebhook(emu, other.test.partnerKey, { url: otherReceiver.url, secret: SECRET });
    const otherMerchant = await createMerchant(emu, other.test.partnerKey, 'tenant-other');
    const otherInvoice = await partnerInvoice(emu, other.test.partnerKey, otherMerchant.merchantId);
    await otherReceiver.waitFor(1);
    const otherList = await list(emu, other.test.partnerKey, { limit: 100 });
    expect(otherList.data.map((d) => d.eventId)).toEqual([`${otherInvoice.id}-1`]);
    expect(await ids({ limit: 100 })).toEqual(newestFirst);
    expect(r.requests.map((q) => envelopeOf(q).id)).not.toContain(`${otherInvoice.id}-1`);
    expect((await list(emu, live.partnerKey, { limit: 100 })).data).toEqual([]);
    const refusedList = (query: DeliveryQuery) => emu.client.test.listDeliveries({ key: test.partnerKey, query });
    expectRefused(await refusedList({ merchantId: otherMerchant.merchantId }), 404, 'merchant_not_found');
    expectRefused(await refusedList({ merchantId: live.merchantId }), 404, 'merchant_not_found');
    expectRefused(await refusedList({ startingAfter: otherList.data[0]!.id }), 400, 'validation_failed');
    expectRefused(await emu.client.test.getDelivery({ key: test.partnerKey, params: { id: otherList.data[0]!.id } }), 404, 'delivery_not_found');
    expectRefused(await emu.client.test.getDelivery({ key: live.partnerKey, params: { id: all.data[0]!.id } }), 404, 'delivery_not_found');
  });
});

describe('disabled or missing configuration', () => {
  it('still records events (the sequence continues) but creates no deliveries; re-enabling delivers only new events', async () => {
    const emu = await emulator();
    const r = await receiver();
    const { test } = emu.keys;

    // No configuration at all.
    const a = await merchantInvoice(emu, test.merchantKey, '10.00');
    expect((await list(emu, test.partnerKey)).data).toEqual([]);

    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    await pay(emu, test.merchantKey, a.id, { amount: '3.00' }); // A-2, delivered
    await r.waitFor(1);

    await putWebhook(emu, test.partnerKey, { url: r.url, enabled: false });
    await pay(emu, test.merchantKey, a.id, { amount: '2.00' }); // A-3, not delivered
    const b = await merchantInvoice(emu, test.merchantKey, '4.00'); // B-1, not delivered
    expect((await list(emu, test.partnerKey, { limit: 100 })).data.map((d) => d.eventId)).toEqual([`${a.id}-2`]);

    await putWebhook(emu, test.partnerKey, { url: r.url, enabled: true });
    await pay(emu, test.merchantKey, a.id); // A-4 (paid), delivered
    await pay(emu, test.merchantKey, b.id); // B-2 (paid), delivered
    await r.waitFor(3);
    await emu.advanceClock(86400);
    await sleep(100);

    const received = r.requests.map(envelopeOf);
    expect(received.map((e) => e.id).sort()).toEqual([`${a.id}-2`, `${a.id}-4`, `${b.id}-2`].sort());
    const a4 = received.find((e) => e.id === `${a.id}-4`);
    expect(a4).toMatchObject({ type: 'invoice.paid', data: { sequence: 4, status: 'PAID', amountReceived: '10.00' } });
    expect(received.find((e) => e.id === `${b.id}-2`)).toMatchObject({ type: 'invoice.paid', data: { sequence: 2 } });
    const deliveries = (await list(emu, test.partnerKey, { limit: 100 })).data;
    expect(deliveries.map((d) => d.eventId)).toEqual([`${b.id}-2`, `${a.id}-4`, `${a.id}-2`]);
    expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
  });
  it('a retry that falls due while the webhook is disabled fails as webhook_disabled without a request; re-enabled, the next retry delivers', async () => {
    const emu = await emulator();
    const r = await receiver({ status: 500 });
    const { test } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: r.url, secret: SECRET });
    const invoice = await merchantInvoice(emu, test.merchantKey);
    const first = await attempted(emu, test.partnerKey, `${invoice.id}-1`, 1);

    await putWebhook(emu, test.partnerKey, { url: r.url, enabled: false });
    await emu.advanceClock(5);
    const disabled = await detail(emu, test.partnerKey, first.id);
    expect(disabled).toMatchObject({ status: 'retrying', attemptCount: 2, lastResponseStatus: null, nextAttemptAt: iso(T0 + 305_000) });
    expect(disabled.lastError).toMatch(/^webhook_disabled: /);
    expect(r.requests).toHaveLength(1);

    await putWebhook(emu, test.partnerKey, { url: r.url, enabled: true });
    r.respond({ status: 200 });
    await emu.advanceClock(300);
    const done = await detail(emu, test.partnerKey, first.id);
    expect(done).toMatchObject({ status: 'succeeded', attemptCount: 3, lastResponseStatus: 200, lastError: null });
    expect(done.attempts.at(-1)!.startedAt).toBe(iso(T0 + 305_000));
    expect(r.requests).toHaveLength(2);
  });
});

describe('isolation of a slow receiver', () => {
  it("a second partner's hanging receiver with dozens of pending deliveries does not delay the default partner's", async () => {
    // The slow partner's attempts outlast the test: a default-partner delivery that waited behind them
    // would miss the 30 s ceiling below. No wall-clock bound on how fast the others go (issue 23).
    const hangTimeoutMs = 600_000;
    const emu = await emulator({ config: { webhooks: { timeoutMs: hangTimeoutMs } } });
    const hanging = await receiver('hang');
    const fast = await receiver();
    const { test } = emu.keys;

    const other = dataOf(await emu.client.test.createPartner({ body: { name: 'Slow partner' } }), 201);
    const otherKey = other.test.partnerKey as string;
    await putWebhook(emu, otherKey, { url: hanging.url, secret: SECRET });
    const otherMerchant = (await createMerchant(emu, otherKey, 'tenant-slow')).merchantId as string;
    const backlog = 80;
    for (let i = 0; i < backlog; i += 20) {
      await Promise.all(Array.from({ length: 20 }, () => partnerInvoice(emu, otherKey, otherMerchant, '1.00')));
    }
    // Dozens of attempts hang at the dead receiver now.
    await hanging.waitFor(40, 30_000);

    await putWebhook(emu, test.partnerKey, { url: fast.url, secret: SECRET });
    for (let k = 1; k <= 5; k++) {
      const invoice = await merchantInvoice(emu, test.merchantKey);
      const [q] = (await fast.waitFor(k, 30_000)).slice(k - 1);
      expect(envelopeOf(q!).id).toBe(`${invoice.id}-1`);
    }
    // Everything above happened while the slow partner's attempts were still hanging.
    const stuck = (await list(emu, otherKey, { limit: 100 })).data;
    expect(stuck).toHaveLength(backlog);
    expect(stuck.every((d) => d.attemptCount === 0 && d.status === 'pending')).toBe(true);
    const mine = await waitUntil("the default partner's deliveries succeeded", async () => {
      const { data } = await list(emu, test.partnerKey, { limit: 100 });
      return data.every((d) => d.status === 'succeeded') ? data : undefined;
    });
    expect(mine).toHaveLength(5);
  });
  it('a burst of more due retries than the global in-flight limit, all to one dead receiver, does not starve another partner', async () => {
    const timeoutMs = 3000;
    const emu = await emulator({ config: { webhooks: { timeoutMs } } });
    const dead = await receiver({ status: 500 });
    const fast = await receiver();
    const { test } = emu.keys;
    const other = dataOf(await emu.client.test.createPartner({ body: { name: 'Bursty partner' } }), 201);
    const otherKey = other.test.partnerKey as string;
    await putWebhook(emu, otherKey, { url: dead.url, secret: SECRET });
    const otherMerchant = (await createMerchant(emu, otherKey, 'tenant-burst')).merchantId as string;
    const backlog = 1050;
    for (let i = 0; i < backlog; i += 50) {
      await Promise.all(Array.from({ length: 50 }, () => partnerInvoice(emu, otherKey, otherMerchant, '1.00')));
    }
    // Every first attempt failed fast at T0; all 1050 retries fall due together at T0 + 5 s.
    await dead.waitFor(backlog, 30_000);
    await waitUntil('every first attempt written', async () => (await list(emu, otherKey, { status: 'pending', limit: 1 })).data.length === 0);
    await putWebhook(emu, test.partnerKey, { url: fast.url, secret: SECRET });

    dead.respond('hang');
    const advancing = emu.advanceClock(5); // resolves once every attempt due by then has run
    await dead.waitFor(backlog + 64, 30_000);
    const t = Date.now();
    const invoice = await merchantInvoice(emu, test.merchantKey);
    const got = await fast.waitFor(1, timeoutMs + 3000);
    const latency = got[0]!.receivedAt - t;
    // Let the burst end: the dead receiver goes away, its attempts fail at once, the advance finishes.
    await dead.close();
    await advancing;
    expect(envelopeOf(got[0]!).id).toBe(`${invoice.id}-1`);
    expect(latency, `the default partner's event waited ${latency} ms behind the dead receiver's burst`).toBeLessThan(1000);
  }, 40_000);

  it("a backlog beyond one receiver's share of in-flight attempts does not keep the emulator busy polling", async () => {
    const emu = await emulator({ config: { webhooks: { timeoutMs: 8000 } } });
    const hanging = await receiver('hang');
    const { test } = emu.keys;
    await putWebhook(emu, test.partnerKey, { url: hanging.url, secret: SECRET });
    // One by one, as events come in practice: the backlog outgrows the receiver's share of slots.
    for (let i = 0; i < 80; i++) await merchantInvoice(emu, test.merchantKey, '1.00');
    await hanging.waitFor(64, 30_000);
    await sleep(300);
    // Nothing can happen until a hanging attempt ends: the process should be (nearly) idle.
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(1500);
    const cpu = process.cpuUsage(cpu0);
    const busy = ((cpu.user + cpu.system) / 1000 / (performance.now() - t0)) * 100;
    expect(busy, `CPU use while waiting on a dead receiver: ${busy.toFixed(1)} %`).toBeLessThan(10);
    expect((await list(emu, test.partnerKey, { limit: 100 })).data.every((d) => d.attemptCount === 0)).toBe(true);
  });
});

describe('live URL rules at delivery time', () => {
  it('blocks a live webhook whose name resolves to 127.0.0.1 (DNS rebinding); nothing reaches a local receiver', async () => {
    // A raw TCP listener sees any connection at all, TLS or not.
    const connections: Socket[] = [];
    const tcp = createTcpServer((socket) => {
      connections.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const tcpPort = (tcp.address() as AddressInfo).port;
    const http = await receiver();
    const resolved: string[] = [];
    const emu = await emulator({
      lookup: async (host) => {
        resolved.push(host);
        if (host === 'rebind.example.com') return ['127.0.0.1'];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    try {
      const { live } = emu.keys;
      for (const url of ['https://rebind.example.com/hook', `https://rebind.example.com:${tcpPort}/hook`, `https://rebind.example.com:${http.port}/hook`]) {
        // Valid when saved: the URL text breaks no rule.
        const saved = await putWebhook(emu, live.partnerKey, { url, secret: SECRET });
        expect(saved).toMatchObject({ url, environment: 'live', enabled: true });
        const invoice = await merchantInvoice(emu, live.merchantKey);
        const d = await attempted(emu, live.partnerKey, `${invoice.id}-1`, 1);
        expect(d.lastError, url).toMatch(/^address_blocked: /);
        expect(d.lastError, url).toContain('127.0.0.1');
        expect(d.lastResponseStatus, url).toBeNull();
        expect(d.attempts[0]).toMatchObject({ responseStatus: null, responseBody: null, error: d.lastError });
      }
      expect(resolved).toContain('rebind.example.com');
      await sleep(100);
      expect(connections).toHaveLength(0);
      expect(http.requests).toHaveLength(0);
    } finally {
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    }
  });
});
