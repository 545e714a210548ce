/**
 * U+0000 (NUL), and lone surrogates, in what a request sends. PostgreSQL's text cannot hold the character: a path id, a
 * cursor or a body field with one was a 500 there (the statement failed, SQLSTATE 22021) where SQLite
 * answered 404 or stored it. Now both engines answer alike (this file runs on both): an id or a
 * cursor holding one names nothing (404, or the cursor's 400), a body field holding one is 400
 * `validation_failed` naming it, and nothing is stored. A lone surrogate in a body field is refused
 * the same way: both engines stored U+FFFD in its place, so the answer and later reads disagreed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
let invoiceId: string;
const partner = () => emu.keys.test.partnerKey;

beforeAll(async () => {
  emu = await startTestEmulator();
  const created = await emu.call('POST', '/v1/partner/invoices', {
    key: partner(),
    idempotencyKey: ikey(),
    body: { merchantId: emu.keys.test.merchantId, amount: '5.00' },
  });
  expect(created.status).toBe(201);
  invoiceId = created.body.id;
});
afterAll(() => emu?.stop());

const count = async (table: string) => Number((await emu.query(`SELECT count(*) AS n FROM ${table}`))[0]!.n);

describe('U+0000 in a request', () => {
  it('in a path id or a cursor names nothing: 404 with the resource’s code, or the cursor’s 400', async () => {
    const cases: [method: string, path: string, key: string, status: number, code: string][] = [
      ['GET', '/v1/partner/invoices/%00', partner(), 404, 'invoice_not_found'],
      ['GET', '/v1/invoices/a%00b', emu.keys.test.merchantKey, 404, 'invoice_not_found'],
      ['GET', '/v1/partner/merchants/%00', partner(), 404, 'merchant_not_found'],
      ['GET', '/v1/partner/webhook/deliveries/%00', partner(), 404, 'delivery_not_found'],
      ['POST', '/v1/partner/webhook/deliveries/%00/resend', partner(), 404, 'delivery_not_found'],
      ['POST', '/v1/test_helpers/invoices/%00/expire', partner(), 404, 'invoice_not_found'],
      ['GET', '/v1/partner/invoices?startingAfter=%00', partner(), 400, 'validation_failed'],
      ['GET', '/v1/partner/merchants?startingAfter=%00', partner(), 400, 'validation_failed'],
      ['GET', '/v1/partner/webhook/deliveries?startingAfter=%00', partner(), 400, 'validation_failed'],
      ['GET', '/__emulator/requests/%00', '', 404, 'request_not_found'],
      ['GET', '/__emulator/requests?startingAfter=%00', '', 400, 'validation_failed'],
      ['POST', '/__emulator/merchants/%00/keys', '', 404, 'merchant_not_found'],
    ];
    for (const [method, path, key, status, code] of cases) {
      const res = await emu.call(method, path, { ...(key ? { key } : {}), ...(method === 'POST' ? { idempotencyKey: ikey(), body: {} } : {}) });
      expect([res.status, res.body?.error?.code], `${method} ${path}: ${res.text}`).toEqual([status, code]);
    }
    const payment = await emu.call('POST', `/v1/test_helpers/invoices/${invoiceId}/payments/%00/confirm`, { key: partner(), idempotencyKey: ikey(), body: {} });
    expect([payment.status, payment.body.error.code]).toEqual([404, 'payment_not_found']);
  });

  it('in a read asked together with others fails none of them (PostgreSQL sends reads by id together)', async () => {
    const reads = await Promise.all(
      Array.from({ length: 24 }, (_, i) => emu.call('GET', `/v1/partner/invoices/${i % 3 === 0 ? '%00' : invoiceId}`, { key: partner() })),
    );
    expect(reads.map((r) => r.status)).toEqual(Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? 404 : 200)));
  });

  it('in a body field is 400 validation_failed naming the field, and nothing is stored', async () => {
    const before = { invoices: await count('invoices'), merchants: await count('merchants'), payments: await count('payments') };
    const cases: [path: string, body: unknown, param: string][] = [
      ['/v1/partner/invoices', { merchantId: emu.keys.test.merchantId, amount: '1.00', referenceId: 'order\u00001' }, 'referenceId'],
      ['/v1/partner/merchants', { externalTenantId: 'tenant\u0000', email: 'shop@example.com', name: 'Shop' }, 'externalTenantId'],
      [`/v1/test_helpers/invoices/${invoiceId}/payments`, { amount: '1.00', txHash: '0x\u0000' }, 'txHash'],
      // A lone surrogate: both engines stored U+FFFD in its place, so the answer and later reads differed.
      ['/v1/partner/invoices', { merchantId: emu.keys.test.merchantId, amount: '1.00', referenceId: 'order\ud8001' }, 'referenceId'],
    ];
    for (const [path, body, param] of cases) {
      const res = await emu.call('POST', path, { key: partner(), idempotencyKey: ikey(), body });
      expect([res.status, res.body?.error?.code, res.body?.error?.param], `${path}: ${res.text}`).toEqual([400, 'validation_failed', param]);
      expect(res.body.error.message).toMatch(/U\+0000|lone surrogate/);
    }
    expect({ invoices: await count('invoices'), merchants: await count('merchants'), payments: await count('payments') }).toEqual(before);
  });
});
