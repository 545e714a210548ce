import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import type { WebhookEvent } from '../../src/webhooks/envelope.js';
import { dataOf, expectRefused } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/** Every transition and event of CONTRACT §3–4 through real HTTP, with the exact sequence numbers. */
let emu: TestEmulator;
let rx: Receiver;
let pt: string;

beforeAll(async () => {
  emu = await startTestEmulator({ clock: manualClock() });
  rx = await startReceiver();
  pt = emu.keys.test.partnerKey;
  dataOf(await emu.client.test.putWebhook({ body: { url: `${rx.url}/hooks`, secret: 'whsec_lifecycle_secret' } }));
});
afterAll(async () => {
  await emu.stop();
  await rx.close();
});

async function invoice(amount = '10.00') {
  return dataOf(await emu.client.test.createPartnerInvoice({ body: { merchantId: emu.keys.test.merchantId, amount }, idempotencyKey: ikey() }), 201);
}

type PaymentBody = { amount?: string; token?: string; networkId?: number; confirmed?: boolean };
// Test helpers take either key (the merchant's first, in the client): these tests act as the partner unless told.
const pay = async (id: string, body: PaymentBody = {}, key = pt) => dataOf(await emu.client.test.createTestPayment({ params: { id }, body, key }), 201);
const confirm = async (id: string, paymentId: string) => dataOf(await emu.client.test.confirmTestPayment({ params: { id, paymentId }, key: pt }));
const partnerInvoice = async (id: string) => dataOf(await emu.client.test.getPartnerInvoice({ params: { id } }));

/** The events of one invoice, as its deliveries carried them to the receiver, in sequence order. */
async function eventsOf(invoiceId: string, count: number): Promise<WebhookEvent[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const events = rx.requests.map((r) => JSON.parse(r.rawBody) as WebhookEvent).filter((e) => e.data.invoiceId === invoiceId);
    if (events.length >= count || Date.now() > deadline) return events.sort((a, b) => a.data.sequence - b.data.sequence);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function expectSequence(events: WebhookEvent[], invoiceId: string, expected: [string, string, string, string | null][]) {
  expect(events.map((e) => [e.type, e.data.status, e.data.amountReceived, e.data.token])).toEqual(expected);
  events.forEach((e, i) => {
    expect(e.data.sequence).toBe(i + 1);
    expect(e.id).toBe(`${invoiceId}-${i + 1}`);
  });
}

describe('transitions and their events', () => {
  it('create then pay: invoice.created (1) and invoice.paid (2), no payment_detected', async () => {
    const inv = await invoice();
    const paid = await pay(inv.id);
    expect(paid.invoice).toMatchObject({ status: 'PAID', amountReceived: '10.00' });
    expect(paid.payment).toMatchObject({ confirmed: true, amount: '10.00', token: 'USDC' });
    expectSequence(await eventsOf(inv.id, 2), inv.id, [
      ['invoice.created', 'CREATED', '0.00', null],
      ['invoice.paid', 'PAID', '10.00', 'USDC'],
    ]);
  });

  it('unconfirmed then confirmed: payment_detected (CONFIRMING), then paid', async () => {
    const inv = await invoice();
    const seen = await pay(inv.id, { confirmed: false, networkId: 2494104990 });
    expect(seen.invoice).toMatchObject({ status: 'CONFIRMING', amountReceived: '0.00' });
    expect(seen.payment).toMatchObject({ confirmed: false, token: 'USDT' });
    const done = await confirm(inv.id, seen.payment.id);
    expect(done.invoice).toMatchObject({ status: 'PAID', amountReceived: '10.00' });
    expect(done.payment.confirmed).toBe(true);
    expectSequence(await eventsOf(inv.id, 3), inv.id, [
      ['invoice.created', 'CREATED', '0.00', null],
      ['invoice.payment_detected', 'CONFIRMING', '0.00', 'USDT'],
      ['invoice.paid', 'PAID', '10.00', 'USDT'],
    ]);
  });

  it('partial payments add up: partially_paid, payment_detected, partially_paid, paid', async () => {
    const inv = await invoice('10.00');
    expect((await pay(inv.id, { amount: '2.5' })).invoice).toMatchObject({ status: 'PARTIALLY_PAID', amountReceived: '2.50' });
    const seen = await pay(inv.id, { amount: '3', confirmed: false });
    expect(seen.invoice.status).toBe('CONFIRMING');
    expect((await confirm(inv.id, seen.payment.id)).invoice).toMatchObject({ status: 'PARTIALLY_PAID', amountReceived: '5.50' });
    // The default amount is what is left.
    const rest = await pay(inv.id);
    expect(rest.payment.amount).toBe('4.50');
    expect(rest.invoice).toMatchObject({ status: 'PAID', amountReceived: '10.00' });
    expectSequence(await eventsOf(inv.id, 5), inv.id, [
      ['invoice.created', 'CREATED', '0.00', null],
      ['invoice.partially_paid', 'PARTIALLY_PAID', '2.50', 'USDC'],
      ['invoice.payment_detected', 'CONFIRMING', '2.50', 'USDC'],
      ['invoice.partially_paid', 'PARTIALLY_PAID', '5.50', 'USDC'],
      ['invoice.paid', 'PAID', '10.00', 'USDC'],
    ]);
  });

  it('overpayment: paid then overpaid; later payments on PAID raise amountReceived with overpaid', async () => {
    const inv = await invoice('10.00');
    expect((await pay(inv.id, { amount: '12.345' })).invoice).toMatchObject({ status: 'PAID', amountReceived: '12.345' });
    expect((await pay(inv.id, { amount: '1' })).invoice).toMatchObject({ status: 'PAID', amountReceived: '13.345' });
    expectSequence(await eventsOf(inv.id, 4), inv.id, [
      ['invoice.created', 'CREATED', '0.00', null],
      ['invoice.paid', 'PAID', '12.345', 'USDC'],
      ['invoice.overpaid', 'PAID', '12.345', 'USDC'],
      ['invoice.overpaid', 'PAID', '13.345', 'USDC'],
    ]);
  });

  it('expiry at expiresAt on the clock, then a late payment: expired, paid_late; status stays EXPIRED', async () => {
    const inv = await invoice('5.00');
    await emu.advanceClock(3599);
    expect((await partnerInvoice(inv.id)).status).toBe('CREATED');
    const report = await emu.advanceClock(1);
    expect(report.expired).toBeGreaterThanOrEqual(1);
    expect((await partnerInvoice(inv.id)).status).toBe('EXPIRED');
    const late = await pay(inv.id, { amount: '5.00' });
    expect(late.invoice).toMatchObject({ status: 'EXPIRED', amountReceived: '5.00' });
    expectSequence(await eventsOf(inv.id, 3), inv.id, [
      ['invoice.created', 'CREATED', '0.00', null],
      ['invoice.expired', 'EXPIRED', '0.00', null],
      ['invoice.paid_late', 'EXPIRED', '5.00', 'USDC'],
    ]);
  });

  it('a partially paid invoice expires too, reporting the last token', async () => {
    const inv = await invoice('5.00');
    await pay(inv.id, { amount: '1', networkId: 2494104990 });
    await emu.advanceClock(3600);
    expectSequence(await eventsOf(inv.id, 3), inv.id, [
      ['invoice.created', 'CREATED', '0.00', null],
      ['invoice.partially_paid', 'PARTIALLY_PAID', '1.00', 'USDT'],
      ['invoice.expired', 'EXPIRED', '1.00', 'USDT'],
    ]);
  });

  it('a CONFIRMING invoice does not expire; confirmed short after expiresAt it becomes EXPIRED', async () => {
    const inv = await invoice('5.00');
    const seen = await pay(inv.id, { amount: '2', confirmed: false });
    await emu.advanceClock(7200);
    expect((await partnerInvoice(inv.id)).status).toBe('CONFIRMING');
    expect((await confirm(inv.id, seen.payment.id)).invoice).toMatchObject({ status: 'EXPIRED', amountReceived: '2.00' });
    expectSequence(await eventsOf(inv.id, 3), inv.id, [
      ['invoice.created', 'CREATED', '0.00', null],
      ['invoice.payment_detected', 'CONFIRMING', '0.00', 'USDC'],
      ['invoice.expired', 'EXPIRED', '2.00', 'USDC'],
    ]);
  });

  it('a CONFIRMING invoice confirmed in full after expiresAt is PAID', async () => {
    const inv = await invoice('5.00');
    const seen = await pay(inv.id, { confirmed: false });
    await emu.advanceClock(7200);
    expect((await confirm(inv.id, seen.payment.id)).invoice.status).toBe('PAID');
  });

  it('what a payment, a confirmation and the expire helper answer is the invoice as stored: a read right after shows the same', async () => {
    const inv = await invoice('10.00');
    const partial = await pay(inv.id, { amount: '2.5' });
    expect(partial.invoice).toEqual(await partnerInvoice(inv.id));
    const seen = await pay(inv.id, { amount: '3', confirmed: false });
    expect(seen.invoice).toEqual(await partnerInvoice(inv.id));
    const confirmed = await confirm(inv.id, seen.payment.id);
    expect(confirmed.invoice).toEqual(await partnerInvoice(inv.id));
    await emu.advanceClock(60);
    const expired = dataOf(await emu.client.test.expireTestInvoice({ params: { id: inv.id }, key: pt }));
    expect(expired.invoice).toMatchObject({ status: 'EXPIRED', amountReceived: '5.50' });
    expect(expired.invoice).toEqual(await partnerInvoice(inv.id));
    const late = await pay(inv.id, { amount: '1' });
    expect(late.invoice).toMatchObject({ status: 'EXPIRED', amountReceived: '6.50' });
    expect(late.invoice).toEqual(await partnerInvoice(inv.id));
  });

  it('the expire helper: EXPIRED now with expiresAt moved; 409 invoice_not_expirable on PAID or EXPIRED', async () => {
    const inv = await invoice();
    const res = dataOf(await emu.client.test.expireTestInvoice({ params: { id: inv.id }, key: pt }));
    expect(res.invoice.status).toBe('EXPIRED');
    expect(Date.parse(res.invoice.expiresAt)).toBe(emu.clock.now());
    expectRefused(await emu.client.test.expireTestInvoice({ params: { id: inv.id }, key: pt }), 409, 'invoice_not_expirable');
    const paid = await invoice();
    await pay(paid.id);
    expectRefused(await emu.client.test.expireTestInvoice({ params: { id: paid.id }, key: pt }), 409, 'invoice_not_expirable');
    expectSequence(await eventsOf(inv.id, 2), inv.id, [
      ['invoice.created', 'CREATED', '0.00', null],
      ['invoice.expired', 'EXPIRED', '0.00', null],
    ]);
  });
});

describe('test helpers: who may call them', () => {
  it('live keys: 403 test_mode_only, before anything else', async () => {
    const live = dataOf(await emu.client.live.createInvoice({ body: { amount: '1' }, idempotencyKey: ikey() }), 201);
    const id = live.id;
    for (const key of [emu.keys.live.partnerKey, emu.keys.live.merchantKey]) {
      for (const call of [
        () => emu.client.live.createTestPayment({ params: { id }, body: {}, key }),
        () => emu.client.live.expireTestInvoice({ params: { id }, key }),
        () => emu.client.live.confirmTestPayment({ params: { id, paymentId: 'x' }, key }),
      ]) {
        expectRefused(await call(), 403, 'test_mode_only');
      }
    }
  });

  it("merchant keys act on their own invoices (merchant variant), partner keys on their merchants'", async () => {
    const mine = dataOf(await emu.client.test.createInvoice({ body: { amount: '3' }, idempotencyKey: ikey() }), 201);
    const asMerchant = await pay(mine.id, { amount: '1' }, emu.keys.test.merchantKey);
    expect(asMerchant.invoice).not.toHaveProperty('merchantId');
    const asPartner = await pay(mine.id, { amount: '1' });
    expect(asPartner.invoice).toHaveProperty('merchantId', emu.keys.test.merchantId);

    const other = dataOf(await emu.client.test.createPartner({ body: {} }), 201);
    expectRefused(await emu.client.test.createTestPayment({ params: { id: mine.id }, body: {}, key: other.test.partnerKey }), 404, 'invoice_not_found');
    const m = dataOf(
      await emu.client.test.createMerchant({ body: { externalTenantId: 'helper-other', name: 'o', email: 'o@example.com' }, idempotencyKey: ikey() }),
      201,
    );
    const otherKey = dataOf(await emu.client.test.createMerchantKey({ params: { id: m.merchantId } }), 201).merchantKey;
    expect((await emu.client.test.expireTestInvoice({ params: { id: mine.id }, key: otherKey })).status).toBe(404);
  });

  it('payment routes must be ones the invoice offers; bad input is a clear 4xx', async () => {
    const locked = dataOf(await emu.client.test.createInvoice({ body: { amount: '3', networkId: 84532 }, idempotencyKey: ikey() }), 201);
    const id = locked.id;
    expectRefused(await emu.client.test.createTestPayment({ params: { id }, key: pt, body: { networkId: 11155111 } }), 400, 'route_not_available', 'networkId');
    expectRefused(await emu.client.test.createTestPayment({ params: { id }, key: pt, body: { token: 'USDT' } }), 400, 'route_not_available', 'token');
    const ok = await pay(id, { amount: '1' });
    expect(ok.payment).toMatchObject({ token: 'USDC' });
    // @ts-expect-error: an amount is a decimal string, and the client's type says so; the emulator must refuse a number too
    const amount = await emu.client.test.createTestPayment({ params: { id }, key: pt, body: { amount: 1 } });
    expectRefused(amount, 400, 'validation_failed', 'amount');
    const missing = await emu.client.test.confirmTestPayment({ params: { id, paymentId: '00000000-0000-4000-8000-000000000000' }, key: pt });
    expect(!missing.ok && missing.error.code).toBe('payment_not_found');
    const twice = await emu.client.test.confirmTestPayment({ params: { id, paymentId: ok.payment.id }, key: pt });
    expect(!twice.ok && twice.error.code).toBe('payment_already_confirmed');
  });

  it('a fully paid invoice has no default amount', async () => {
    const inv = await invoice('1.00');
    await pay(inv.id);
    expectRefused(await emu.client.test.createTestPayment({ params: { id: inv.id }, body: {}, key: pt }), 400, 'validation_failed', 'amount');
  });
});
