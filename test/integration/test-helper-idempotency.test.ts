import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/**
 * The test helpers take an optional Idempotency-Key (an extension, used by `svc fixtures apply` so a
 * re-run changes nothing): with one, the same call on the same path replays its first answer.
 */
let emu: TestEmulator;
let key: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  key = emu.keys.test.partnerKey;
});
afterAll(() => emu.stop());

async function invoice(amount = '10.00'): Promise<string> {
  const res = await emu.call('POST', '/v1/partner/invoices', { key, idempotencyKey: ikey(), body: { merchantId: emu.keys.test.merchantId, amount } });
  return res.body.id;
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
    const read = await emu.call('GET', `/v1/partner/invoices/${id}`, { key });
    expect(read.body.amountReceived).toBe('4.00');
  });

  it('the same key with another body is 422; on another invoice it is another request', async () => {
    const a = await invoice();
    const b = await invoice();
    const k = ikey();
    expect((await emu.call('POST', `/v1/test_helpers/invoices/${a}/payments`, { key, idempotencyKey: k, body: { amount: '1.00' } })).status).toBe(201);
    const reused = await emu.call('POST', `/v1/test_helpers/invoices/${a}/payments`, { key, idempotencyKey: k, body: { amount: '2.00' } });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
    expect((await emu.call('POST', `/v1/test_helpers/invoices/${b}/payments`, { key, idempotencyKey: k, body: { amount: '1.00' } })).status).toBe(201);
  });

  it('confirm and expire replay instead of answering 409 the second time', async () => {
    const id = await invoice();
    const pending = await emu.call('POST', `/v1/test_helpers/invoices/${id}/payments`, { key, body: { amount: '1.00', confirmed: false } });
    const paymentId = pending.body.payment.id;
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
    const expire = () => emu.call('POST', `/v1/test_helpers/invoices/${other}/expire`, { key, idempotencyKey: e });
    expect((await expire()).status).toBe(200);
    expect((await expire()).headers.get('idempotent-replayed')).toBe('true');
    // Without a key it acts, and an expired invoice cannot expire again.
    expect((await emu.call('POST', `/v1/test_helpers/invoices/${other}/expire`, { key })).status).toBe(409);
  });

  it('without a key every call acts, as CONTRACT §6 describes', async () => {
    const id = await invoice();
    await emu.call('POST', `/v1/test_helpers/invoices/${id}/payments`, { key, body: { amount: '1.00' } });
    await emu.call('POST', `/v1/test_helpers/invoices/${id}/payments`, { key, body: { amount: '1.00' } });
    expect((await emu.call('GET', `/v1/partner/invoices/${id}`, { key })).body.amountReceived).toBe('2.00');
  });

  it('an empty key is still refused, as on creates', async () => {
    const id = await invoice();
    const res = await emu.call('POST', `/v1/test_helpers/invoices/${id}/payments`, { key, idempotencyKey: '', body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('idempotency_key_invalid');
  });
});
