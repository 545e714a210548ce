import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, expectRefused } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/**
 * The test helpers take an optional Idempotency-Key (an extension, used by `svc fixtures apply` so a
 * re-run changes nothing): with one, the same call on the same path replays its first answer.
 * Through the typed client, except where a replay is compared byte for byte with the first answer.
 */
let emu: TestEmulator;
let key: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  key = emu.keys.test.partnerKey;
});
afterAll(() => emu.stop());

async function invoice(amount = '10.00'): Promise<string> {
  return dataOf(await emu.client.test.createPartnerInvoice({ idempotencyKey: ikey(), body: { merchantId: emu.keys.test.merchantId, amount } }), 201).id;
}

describe('test helpers with an Idempotency-Key', () => {
  it('a payment repeated with the same key is the first answer (200, replayed), not a second payment', async () => {
    const id = await invoice();
    const k = ikey();
    const first = await emu.call('POST', `/v1/test_helpers/invoices/${id}/payments`, { key, idempotencyKey: k, body: { amount: '4.00' } });
    expect(first.status).toBe(201);
    const again = await emu.call('POST', `/v1/test_helpers/invoices/${id}/payments`, { key, idempotencyKey: k, body: { amount: '4.00' } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(dataOf(await emu.client.test.getPartnerInvoice({ params: { id } })).amountReceived).toBe('4.00');
  });

  it('the same key with another body is 422; on another invoice it is another request', async () => {
    const a = await invoice();
    const b = await invoice();
    const k = ikey();
    const pay = (id: string, amount: string) => emu.client.test.createTestPayment({ params: { id }, key, idempotencyKey: k, body: { amount } });
    expect((await pay(a, '1.00')).status).toBe(201);
    expectRefused(await pay(a, '2.00'), 422, 'idempotency_key_reused');
    expect((await pay(b, '1.00')).status).toBe(201);
  });

  it('confirm and expire replay instead of answering 409 the second time', async () => {
    const id = await invoice();
    const pending = dataOf(await emu.client.test.createTestPayment({ params: { id }, key, body: { amount: '1.00', confirmed: false } }), 201);
    const paymentId = pending.payment.id;
    const k = ikey();
    const confirm = () => emu.call('POST', `/v1/test_helpers/invoices/${id}/payments/${paymentId}/confirm`, { key, idempotencyKey: k });
    const first = await confirm();
    expect(first.status).toBe(200);
    const second = await confirm();
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);

    const other = await invoice();
    const e = ikey();
    const expire = () => emu.client.test.expireTestInvoice({ params: { id: other }, key, idempotencyKey: e });
    expect((await expire()).status).toBe(200);
    expect(await expire()).toMatchObject({ ok: true, replayed: true });
    // Without a key it acts, and an expired invoice cannot expire again.
    expect((await emu.client.test.expireTestInvoice({ params: { id: other }, key })).status).toBe(409);
  });

  it('without a key every call acts, as CONTRACT §6 describes', async () => {
    const id = await invoice();
    await emu.client.test.createTestPayment({ params: { id }, key, body: { amount: '1.00' } });
    await emu.client.test.createTestPayment({ params: { id }, key, body: { amount: '1.00' } });
    expect(dataOf(await emu.client.test.getPartnerInvoice({ params: { id } })).amountReceived).toBe('2.00');
  });

  it('an empty key is still refused, as on creates', async () => {
    const id = await invoice();
    expectRefused(await emu.client.test.createTestPayment({ params: { id }, key, idempotencyKey: '', body: {} }), 400, 'idempotency_key_invalid');
  });
});
