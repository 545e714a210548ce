/**
 * The typed client (issue 12): `emulator.client` and `createClient` from `svc-emulator/client`,
 * against a real emulator. Types are checked by tsc (expectTypeOf); behaviour by real HTTP.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, type ClientResult } from '../../src/client/typed.js';
import type { Invoice, PartnerInvoice } from '../../src/contract/index.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.stop());

describe('emulator.client', () => {
  it('creates with the merchant key and reads with the partner key, typed from the contract', async () => {
    const created = await emu.client.test.createInvoice({ body: { amount: '12.50', referenceId: 'order-1' }, idempotencyKey: 'typed-1' });
    expectTypeOf(created).toEqualTypeOf<ClientResult<'createInvoice'>>();
    if (!created.ok) throw new Error(created.error.message);
    expectTypeOf(created.data).toEqualTypeOf<Invoice>();
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ amount: '12.50', referenceId: 'order-1', status: 'CREATED' });

    const replay = await emu.client.test.createInvoice({ body: { amount: '12.50', referenceId: 'order-1' }, idempotencyKey: 'typed-1' });
    expect(replay).toMatchObject({ ok: true, status: 200, replayed: true });

    const read = await emu.client.test.getPartnerInvoice({ params: { id: created.data.id } });
    if (!read.ok) throw new Error(read.error.message);
    expectTypeOf(read.data).toEqualTypeOf<PartnerInvoice>();
    expect(read.data.id).toBe(created.data.id);
  });

  it('answers errors as a union on code: a 404 invoice_not_found, a 400 validation_failed with param', async () => {
    const missing = await emu.client.test.getInvoice({ params: { id: '00000000-0000-4000-8000-000000000000' } });
    expect(missing.ok).toBe(false);
    if (missing.ok) return;
    expect(missing.status).toBe(404);
    expect(missing.error.code).toBe('invoice_not_found');
    if (missing.error.code === 'invoice_not_found') expectTypeOf(missing.error.code).toEqualTypeOf<'invoice_not_found'>();
    // A code this operation cannot answer does not compile.
    // @ts-expect-error: getInvoice never answers webhook_secret_required
    expect(missing.error.code === 'webhook_secret_required').toBe(false);

    const bad = await emu.client.test.createInvoice({ body: { amount: 'ten' }, idempotencyKey: 'typed-bad' });
    expect(bad).toMatchObject({ ok: false, status: 400, error: { code: 'validation_failed', param: 'amount' } });
  });

  it('the live client carries the live keys; test helpers refuse it with test_mode_only', async () => {
    const created = await emu.client.live.createInvoice({ body: { amount: '1.00' }, idempotencyKey: 'typed-live' });
    if (!created.ok) throw new Error(created.error.message);
    expect(created.data.environment).toBe('live');
    const paid = await emu.client.live.createTestPayment({ params: { id: created.data.id }, body: {} });
    expect(paid).toMatchObject({ ok: false, status: 403, error: { code: 'test_mode_only' } });
  });

  it('control-plane operations take no key; a key of its own may be given per call', async () => {
    const clock = await emu.client.test.getClock();
    expect(clock).toMatchObject({ ok: true, status: 200, data: { now: expect.any(String) } });
    const anon = await emu.client.test.listPartnerInvoices({ key: 'pt_test_00000000000000000000000000000000' });
    expect(anon).toMatchObject({ ok: false, status: 401, error: { code: 'unauthorized' } });
  });
});

describe('createClient for a base URL', () => {
  it('works against any base URL with given keys; an unreachable one rejects', async () => {
    const client = createClient({ baseUrl: emu.url, merchantKey: emu.keys.test.merchantKey });
    const list = await client.listInvoices({ query: { limit: 1 } });
    if (!list.ok) throw new Error(list.error.message);
    expect(list.data.data).toHaveLength(1);
    await expect(createClient({ baseUrl: 'http://127.0.0.1:9' }).getHealth()).rejects.toThrow(/cannot reach/);
  });
});
