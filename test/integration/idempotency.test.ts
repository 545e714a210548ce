import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import { dataOf, expectRefused } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/** CONTRACT §2: replays, scope, concurrency and retention. */
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ clock: manualClock() });
});
afterAll(() => emu.stop());

const count = async (table: string) => (await emu.query(`SELECT COUNT(*) AS n FROM ${table}`))[0]?.n as number;

describe('replays', () => {
  // Raw HTTP here: the replay must be the same bytes, whatever the bytes of the request body.
  it('are byte-identical, whatever the key order and whitespace of the body', async () => {
    const key = ikey();
    const first = await emu.call('POST', '/v1/invoices', {
      key: emu.keys.test.merchantKey,
      raw: '{"amount":"9.99","referenceId":"order-1"}',
      idempotencyKey: key,
      headers: { 'content-type': 'application/json' },
    });
    const again = await emu.call('POST', '/v1/invoices', {
      key: emu.keys.test.merchantKey,
      raw: '{ "referenceId": "order-1",\n "amount": "9.99" }',
      idempotencyKey: key,
      headers: { 'content-type': 'application/json' },
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('a replay leaves nothing behind, and another body under the key is 422 even when it would fail validation', async () => {
    const key = ikey();
    const first = dataOf(await emu.client.test.createInvoice({ body: { amount: '3.00' }, idempotencyKey: key }), 201);
    const [invoices, events, deliveries] = [await count('invoices'), await count('events'), await count('deliveries')];
    for (let i = 0; i < 3; i++) {
      const again = await emu.client.test.createInvoice({ body: { amount: '3.00' }, idempotencyKey: key });
      expect(again.ok && again.status === 200 && again.replayed).toBe(true);
      expect(dataOf(again).id).toBe(first.id);
    }
    // Bodies compare before validation (CONTRACT §2): not 400 validation_failed.
    expectRefused(await emu.client.test.createInvoice({ body: { amount: 'lots' }, idempotencyKey: key }), 422, 'idempotency_key_reused');
    expectRefused(await emu.client.test.createInvoice({ body: { amount: '4.00' }, idempotencyKey: key }), 422, 'idempotency_key_reused');
    expect([await count('invoices'), await count('events'), await count('deliveries')]).toEqual([invoices, events, deliveries]);
  });

  it('only successful creates are remembered: a refused create can be retried with the same key', async () => {
    const key = ikey();
    const bad = await emu.client.test.createInvoice({ body: { amount: '1', networkId: 1 }, idempotencyKey: key });
    expect(bad.status).toBe(400);
    const good = await emu.client.test.createInvoice({ body: { amount: '1' }, idempotencyKey: key });
    expect(good.status).toBe(201);
  });

  it('are remembered for 24 hours of emulator time, then the key creates anew', async () => {
    const key = ikey();
    const body = { merchantId: emu.keys.test.merchantId, amount: '4.00' };
    const first = dataOf(await emu.client.test.createPartnerInvoice({ body, idempotencyKey: key }), 201);
    await emu.advanceClock(24 * 3600 - 1);
    const replay = dataOf(await emu.client.test.createPartnerInvoice({ body, idempotencyKey: key }), 200);
    expect(replay.id).toBe(first.id);
    await emu.advanceClock(1);
    const fresh = dataOf(await emu.client.test.createPartnerInvoice({ body, idempotencyKey: key }), 201);
    expect(fresh.id).not.toBe(first.id);
  });

  it('expired records are swept from the database, not only ignored', async () => {
    await emu.client.test.createInvoice({ body: { amount: '1' }, idempotencyKey: ikey() });
    const before = await count('idempotency_keys');
    expect(before).toBeGreaterThan(0);
    // Housekeeping runs at most hourly on the emulator clock; 25 h covers retention and a sweep.
    await emu.advanceClock(25 * 3600);
    expect(await count('idempotency_keys')).toBe(0);
  });

  it('are scoped per endpoint: one key on two endpoints creates two resources', async () => {
    const key = ikey();
    const a = await emu.client.test.createPartnerInvoice({ body: { merchantId: emu.keys.test.merchantId, amount: '1' }, idempotencyKey: key });
    const b = await emu.client.test.createMerchant({ body: { externalTenantId: `ep-${key}`, name: 'n', email: 'n@example.com' }, idempotencyKey: key });
    expect([a.status, b.status]).toEqual([201, 201]);
  });
});

// Raw HTTP where a replay is compared byte for byte with the first answer.
describe('create-merchant scope includes externalTenantId', () => {
  it('the same key with another tenant creates another merchant; with the same tenant it replays', async () => {
    const key = ikey();
    const body = (tenant: string) => ({ externalTenantId: tenant, name: 'Shop', email: 'shop@example.com' });
    const a = await emu.call('POST', '/v1/partner/merchants', { key: emu.keys.test.partnerKey, body: body('scope-a'), idempotencyKey: key });
    const b = await emu.call('POST', '/v1/partner/merchants', { key: emu.keys.test.partnerKey, body: body('scope-b'), idempotencyKey: key });
    const a2 = await emu.call('POST', '/v1/partner/merchants', { key: emu.keys.test.partnerKey, body: body('scope-a'), idempotencyKey: key });
    expect([a.status, b.status, a2.status]).toEqual([201, 201, 200]);
    expect(b.body.merchantId).not.toBe(a.body.merchantId);
    expect(a2.text).toBe(a.text);
    // Same key and tenant, different name: a different body under the same scope.
    const changed = await emu.client.test.createMerchant({ body: { ...body('scope-a'), name: 'Other' }, idempotencyKey: key });
    expectRefused(changed, 422, 'idempotency_key_reused');
  });
});

// The first test stays raw HTTP: every replay is compared byte for byte with the one create.
describe('concurrency', () => {
  it('50 concurrent requests with one key create exactly one resource', async () => {
    const key = ikey();
    const before = await count('invoices');
    const body = { merchantId: emu.keys.test.merchantId, amount: '50.00' };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => emu.call('POST', '/v1/partner/invoices', { key: emu.keys.test.partnerKey, body, idempotencyKey: key })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    // The others are replays (200) or were refused while the first was in flight (409): nothing else.
    expect(statuses.every((s) => s === 201 || s === 200 || s === 409)).toBe(true);
    expect(await count('invoices')).toBe(before + 1);
    const created = responses.find((r) => r.status === 201)!;
    for (const r of responses.filter((x) => x.status === 200)) expect(r.text).toBe(created.text);
  });

  it('50 concurrent merchant creates with one key and tenant create one merchant', async () => {
    const key = ikey();
    const before = await count('merchants');
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        emu.client.test.createMerchant({ body: { externalTenantId: 'race', name: 'Race', email: 'race@example.com' }, idempotencyKey: key }),
      ),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(await count('merchants')).toBe(before + 1);
  });
});
