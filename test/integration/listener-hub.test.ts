import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { type ClientInput, createClient } from '../../src/client/typed.js';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { openEventStream as openStream } from '../helpers/listener-stream.js';

/**
 * The emulator's side of `svc webhook listen`: registration, the stream, results, catch-up. Calls
 * go through the typed client; the streams are raw HTTP (the client offers no streams).
 */
let emu: TestEmulator;
afterEach(() => emu?.stop());

const register = (body: ClientInput<'registerListener'>['body']) => emu.client.test.registerListener({ body });
const reportResult = (body: ClientInput<'reportListenerResult'>['body'], key?: string) => emu.client.test.reportListenerResult({ body, key });
const merchantInvoice = async () => dataOf(await emu.client.test.createInvoice({ body: { amount: '1' }, idempotencyKey: ikey() }), 201);
const deliveryById = async (id: string) => dataOf(await emu.client.test.getDelivery({ params: { id } }));
const deliveriesOf = async (invoiceId: string) => dataOf(await emu.client.test.listDeliveries({ query: { invoiceId } })).data;

describe('listener hub', () => {
  it('delivers registered events signed with the stable listener secret, and records the reported result', async () => {
    emu = await startTestEmulator();
    const pt = emu.keys.test.partnerKey;
    const reg = dataOf(await register({ forwardTo: 'http://localhost:3000/hooks', events: ['invoice.created', 'invoice.paid'] }));
    expect(reg.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    // The secret is stable: asking again, or re-registering, returns the same one.
    expect(dataOf(await emu.client.test.getListenerSecret()).secret).toBe(reg.secret);
    expect(dataOf(await register({ forwardTo: 'http://localhost:3000/hooks', events: ['invoice.created', 'invoice.paid'] })).secret).toBe(reg.secret);

    const stream = await openStream(`${emu.url}/__emulator/listener/stream`, pt);
    await stream.next('ready');
    const inv = dataOf(
      await emu.client.test.createPartnerInvoice({ body: { merchantId: emu.keys.test.merchantId, amount: '4.00' }, idempotencyKey: ikey() }),
      201,
    );
    const msg = (await stream.next('delivery')).data;
    expect(msg).toMatchObject({ eventId: `${inv.id}-1`, eventType: 'invoice.created', attempt: 1 });
    const event = verifyWebhook(msg.body, msg.headers['x-service-signature'], reg.secret);
    expect(event.id).toBe(`${inv.id}-1`);
    expect(msg.headers['user-agent']).toMatch(/^svc-emulator\//);

    const report = await reportResult({ requestId: msg.requestId, status: 204, body: '', durationMs: 7 });
    expect(report.status).toBe(200);
    await expect.poll(async () => (await deliveryById(msg.deliveryId)).status).toBe('succeeded');
    const detail = await deliveryById(msg.deliveryId);
    expect(detail).toMatchObject({ url: 'http://localhost:3000/hooks', lastResponseStatus: 204, attemptCount: 1 });
    // A late or repeated report is refused, not applied twice.
    expect((await reportResult({ requestId: msg.requestId, status: 200, durationMs: 1 })).status).toBe(409);

    // Filtered out: a partial payment creates no listener delivery.
    await emu.client.test.createTestPayment({ key: pt, params: { id: inv.id }, body: { amount: '1' } });
    await emu.client.test.createTestPayment({ key: pt, params: { id: inv.id }, body: {} });
    const paid = (await stream.next('delivery')).data;
    expect(paid.eventType).toBe('invoice.paid');
    const list = await deliveriesOf(inv.id);
    expect(list.map((d) => d.eventType).sort()).toEqual(['invoice.created', 'invoice.paid']);
    stream.close();
  });

  it('a failure reported by the listener is retried like any delivery', async () => {
    emu = await startTestEmulator({ clock: manualClock() });
    const pt = emu.keys.test.partnerKey;
    await register({ forwardTo: 'http://localhost:3000/hooks' });
    const stream = await openStream(`${emu.url}/__emulator/listener/stream`, pt);
    await stream.next('ready');
    await merchantInvoice();
    const first = (await stream.next('delivery')).data;
    await reportResult({ requestId: first.requestId, status: null, error: 'connection_refused: localhost:3000', durationMs: 1 });
    await expect.poll(async () => (await deliveryById(first.deliveryId)).lastError).toBe('connection_refused: localhost:3000');
    const advancing = emu.advanceClock(5);
    const second = (await stream.next('delivery')).data;
    expect(second).toMatchObject({ deliveryId: first.deliveryId, attempt: 2, eventId: first.eventId });
    await reportResult({ requestId: second.requestId, status: 200, body: 'ok', durationMs: 2 });
    await advancing;
    expect(await deliveryById(first.deliveryId)).toMatchObject({
      status: 'succeeded',
      attemptCount: 2,
    });
    stream.close();
  });

  it('events created while the listener was away are delivered as soon as it reconnects', async () => {
    // A frozen clock: the retry 5 s later never falls due by itself, so a delivery on the stream
    // can only come from the reconnect (no wall-clock bound, issue 23).
    emu = await startTestEmulator({ clockStart: '2030-01-01T00:00:00Z' });
    const pt = emu.keys.test.partnerKey;
    await register({ forwardTo: 'http://localhost:3000/hooks' });
    // No stream connected: the attempt fails and is scheduled 5 s later...
    const inv = await merchantInvoice();
    await expect.poll(async () => (await deliveriesOf(inv.id))[0]?.lastError ?? '').toMatch(/^listener_unavailable:/);
    // ...but connecting makes it due at once.
    const stream = await openStream(`${emu.url}/__emulator/listener/stream`, pt);
    const msg = (await stream.next('delivery', 30_000)).data;
    expect(msg.eventId).toBe(`${inv.id}-1`);
    stream.close();
  });

  it('unregistering stops new deliveries; the endpoints need a partner key and loopback', async () => {
    emu = await startTestEmulator();
    await register({ forwardTo: 'http://localhost:3000/hooks' });
    expect((await emu.client.test.unregisterListener()).status).toBe(200);
    const inv = await merchantInvoice();
    expect(await deliveriesOf(inv.id)).toEqual([]);
    // No key at all: a client made without one.
    const keyless = createClient({ baseUrl: emu.url });
    expect((await keyless.registerListener({ body: { forwardTo: 'x' } })).status).toBe(401);
    expect((await emu.client.test.getListenerSecret({ key: emu.keys.test.merchantKey })).status).toBe(403);
    // @ts-expect-error: not an event type, and the client's type says so; the emulator must refuse it too
    const bad = await register({ forwardTo: 'x', events: ['invoice.nope'] });
    expect(bad.status).toBe(400);
    expect(!bad.ok && bad.error.param).toBe('events[0]');
  });

  it('unregistering ends the listener deliveries still waiting: failed, not retried for hours (issue 24)', async () => {
    emu = await startTestEmulator();
    await register({ forwardTo: 'http://localhost:3000/hooks' });
    const inv = await merchantInvoice();
    const list = () => deliveriesOf(inv.id);
    await expect.poll(async () => (await list())[0]?.status).toBe('retrying');
    expect((await emu.client.test.unregisterListener()).status).toBe(200);
    expect(await list()).toEqual([expect.objectContaining({ status: 'failed', nextAttemptAt: null, lastError: expect.stringMatching(/^listener_removed:/) })]);
    // Nothing falls due any more: a day later it is still the one failed attempt.
    await emu.advanceClock(86_400);
    expect(await list()).toEqual([expect.objectContaining({ status: 'failed', attemptCount: 1 })]);
  });

  it('a listener gone without unregistering is kept for its 5-minute reconnect window on the emulator clock, then removed (issue 24)', async () => {
    emu = await startTestEmulator();
    const pt = emu.keys.test.partnerKey;
    const invoice = async () => (await merchantInvoice()).id;
    await register({ forwardTo: 'http://localhost:3000/hooks' });
    const stream = await openStream(`${emu.url}/__emulator/listener/stream`, pt);
    await stream.next('ready');
    stream.close(); // vanished: no DELETE
    // Once the emulator has seen it go (an attempt finds no stream), the window runs from there.
    const gone = await invoice();
    await expect.poll(async () => (await deliveriesOf(gone))[0]?.lastError ?? '').toMatch(/^listener_(unavailable|disconnected):/);
    // Inside the window: still registered, events still get deliveries (a reconnecting listen takes them).
    await emu.advanceClock(4 * 60);
    const inside = await invoice();
    await expect.poll(async () => (await deliveriesOf(inside))[0]?.status).toBe('retrying');
    // Past the window (the scheduler wakes when it ends): its pending deliveries end failed, new events get none.
    await emu.advanceClock(2 * 60 + 10);
    for (const id of [gone, inside]) {
      expect(await deliveriesOf(id)).toEqual([
        expect.objectContaining({ status: 'failed', nextAttemptAt: null, lastError: expect.stringMatching(/^listener_removed:/) }),
      ]);
    }
    const after = await invoice();
    expect(await deliveriesOf(after)).toEqual([]);
    // A listen that comes back registers again and is a target again.
    await register({ forwardTo: 'http://localhost:3000/hooks' });
    const back = await invoice();
    await expect.poll(async () => (await deliveriesOf(back)).length).toBe(1);
  });

  it('the deliveries stream shows every attempt of the partner as it happens', async () => {
    emu = await startTestEmulator();
    const pt = emu.keys.test.partnerKey;
    await emu.client.test.putWebhook({ body: { url: 'http://127.0.0.1:9/nowhere', secret: 'whsec_stream_test_0001' } });
    const tail = await openStream(`${emu.url}/__emulator/deliveries/stream?eventType=invoice.created`, pt);
    await tail.next('ready');
    // The first attempt is immediate; how soon it shows is the machine's speed, not asserted (issue 23).
    const inv = await merchantInvoice();
    const attempt = (await tail.next('attempt', 30_000)).data;
    expect(attempt).toMatchObject({ type: 'delivery.result', eventId: `${inv.id}-1`, ok: false, status: 'retrying', attempt: 1 });
    expect(attempt.error).toMatch(/^connection_refused:/);
    tail.close();
  });
});

/** A client whose calls must answer promptly: a hang rejects (and fails the test) instead of stalling it. */
const promptly = () => createClient({ baseUrl: emu.url, timeoutMs: 8000 });

describe('listener hub: clients cannot stall the control plane (issue 10)', () => {
  it('a stream that drops while holding a delivery releases it at once: it fails as listener_disconnected, retries on schedule, and advance and reset answer', async () => {
    const T0 = Date.UTC(2030, 0, 1);
    emu = await startTestEmulator({ clock: manualClock(T0) });
    const pt = emu.keys.test.partnerKey;
    await register({ forwardTo: 'http://localhost:3000/hooks' });
    const stream = await openStream(`${emu.url}/__emulator/listener/stream`, pt);
    await stream.next('ready');
    await merchantInvoice();
    const held = (await stream.next('delivery')).data;
    stream.close(); // gone, without posting its result

    const delivery = () => deliveryById(held.deliveryId);
    await expect.poll(async () => (await delivery()).lastError ?? '', { timeout: 3000 }).toMatch(/^listener_disconnected:/);
    expect(await delivery()).toMatchObject({ status: 'retrying', attemptCount: 1, nextAttemptAt: new Date(T0 + 5000).toISOString() });

    expect((await promptly().advanceClock({ body: { seconds: 1 } })).status).toBe(200);
    expect((await promptly().resetEmulator()).status).toBe(200);
  });

  it('reset does not wait for a connected listener that never reports', async () => {
    emu = await startTestEmulator();
    const pt = emu.keys.test.partnerKey;
    await register({ forwardTo: 'http://localhost:3000/hooks' });
    const stream = await openStream(`${emu.url}/__emulator/listener/stream?timeoutSeconds=300`, pt);
    await stream.next('ready');
    await merchantInvoice();
    await stream.next('delivery');
    expect((await promptly().resetEmulator()).status).toBe(200);
    expect(await emu.query('SELECT COUNT(*) AS n FROM deliveries')).toEqual([{ n: 0 }]);
    stream.close();
  });

  // Raw HTTP: the stream is not an operation of the typed client.
  it('timeoutSeconds on the stream must be a whole number of seconds from 1 to 300', async () => {
    emu = await startTestEmulator();
    const pt = emu.keys.test.partnerKey;
    for (const value of ['1e10', '0', '-1', '301', '1.5', 'abc', '']) {
      const res = await emu.call('GET', `/__emulator/listener/stream?timeoutSeconds=${value}`, { key: pt });
      expect(res.status, `${value}: ${res.text}`).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'timeoutSeconds' });
    }
    for (const value of ['1', '300']) {
      const stream = await openStream(`${emu.url}/__emulator/listener/stream?timeoutSeconds=${value}`, pt);
      await stream.next('ready');
      stream.close();
    }
  });

  it('a result is accepted only from the partner and environment of the delivery; others get the unknown-request answer', async () => {
    emu = await startTestEmulator();
    const pt = emu.keys.test.partnerKey;
    await register({ forwardTo: 'http://localhost:3000/hooks' });
    const stream = await openStream(`${emu.url}/__emulator/listener/stream`, pt);
    await stream.next('ready');
    await merchantInvoice();
    const msg = (await stream.next('delivery')).data;
    const other = dataOf(await emu.client.test.createPartner({ body: { name: 'Other' } }), 201);

    const report = (key: string, requestId = msg.requestId) => reportResult({ requestId, status: 200, body: 'forged', durationMs: 1 }, key);
    const unknown = await report(pt, '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(409);
    for (const key of [other.test.partnerKey, emu.keys.live.partnerKey, other.live.partnerKey]) {
      const res = await report(key);
      expect(res.status).toBe(unknown.status);
      expect(!res.ok && res.error).toEqual(!unknown.ok && unknown.error);
    }
    const detail = () => deliveryById(msg.deliveryId);
    expect((await detail()).attemptCount).toBe(0);

    expect((await report(pt)).status).toBe(200);
    await expect.poll(async () => (await detail()).status).toBe('succeeded');
    stream.close();
  });
});
