import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/** CONTRACT §1–2: test vs live, partner vs partner, merchant vs merchant, key kinds. */
let emu: TestEmulator;
let other: { test: string; live: string }; // a second partner's keys

beforeAll(async () => {
  emu = await startTestEmulator();
  const res = await emu.call('POST', '/__emulator/partners', { body: { name: 'Other' } });
  other = { test: res.body.test.partnerKey, live: res.body.live.partnerKey };
});
afterAll(() => emu.stop());

async function merchantOf(partnerKey: string, tenant: string) {
  const res = await emu.call('POST', '/v1/partner/merchants', {
    key: partnerKey,
    body: { externalTenantId: tenant, name: tenant, email: `${tenant}@example.com` },
    idempotencyKey: ikey(),
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function partnerInvoice(partnerKey: string, merchantId: string) {
  const res = await emu.call('POST', '/v1/partner/invoices', { key: partnerKey, body: { merchantId, amount: '1.00' }, idempotencyKey: ikey() });
  expect(res.status).toBe(201);
  return res.body;
}

describe('test vs live', () => {
  it('a merchant, its invoices and the webhook created with test keys are invisible with live keys, and back', async () => {
    const { test, live } = emu.keys;
    const m = await merchantOf(test.partnerKey, 'iso-env');
    const inv = await partnerInvoice(test.partnerKey, m.merchantId);
    expect(inv.environment).toBe('test');
    await emu.call('PUT', '/v1/partner/webhook', { key: test.partnerKey, body: { url: 'http://localhost:9/h', secret: 'x'.repeat(16) } });

    expect((await emu.call('GET', `/v1/partner/merchants/${m.merchantId}`, { key: live.partnerKey })).status).toBe(404);
    expect((await emu.call('GET', `/v1/partner/invoices/${inv.id}`, { key: live.partnerKey })).status).toBe(404);
    expect((await emu.call('GET', '/v1/partner/webhook', { key: live.partnerKey })).status).toBe(404);
    const liveList = await emu.call('GET', '/v1/partner/invoices?limit=100', { key: live.partnerKey });
    expect(liveList.body.data.map((i: { id: string }) => i.id)).not.toContain(inv.id);
    const liveMerchants = await emu.call('GET', '/v1/partner/merchants?limit=100', { key: live.partnerKey });
    expect(liveMerchants.body.data.every((x: { merchantId: string }) => x.merchantId !== m.merchantId)).toBe(true);

    const liveInv = await emu.call('POST', '/v1/invoices', { key: live.merchantKey, body: { amount: '2' }, idempotencyKey: ikey() });
    expect(liveInv.body.environment).toBe('live');
    expect((await emu.call('GET', `/v1/invoices/${liveInv.body.id}`, { key: test.merchantKey })).status).toBe(404);
    expect((await emu.call('GET', `/v1/partner/invoices/${liveInv.body.id}`, { key: test.partnerKey })).status).toBe(404);
  });

  it('live invoices are offered on live chains only, test on test chains', async () => {
    const live = await emu.call('POST', '/v1/invoices', { key: emu.keys.live.merchantKey, body: { amount: '2' }, idempotencyKey: ikey() });
    expect(live.body.addresses.map((a: { networkId: number }) => a.networkId)).toEqual([1, 137, 8453, 42161, 10, 56, 728126428, 101]);
    const test = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, body: { amount: '2' }, idempotencyKey: ikey() });
    expect(test.body.addresses.map((a: { networkId: number }) => a.networkId)).toEqual([11155111, 84532, 80002, 421614, 2494104990, 103]);
  });

  it('an idempotency key used in test does not replay in live', async () => {
    const key = ikey();
    const a = await emu.call('POST', '/v1/partner/invoices', {
      key: emu.keys.test.partnerKey,
      body: { merchantId: emu.keys.test.merchantId, amount: '1' },
      idempotencyKey: key,
    });
    const b = await emu.call('POST', '/v1/partner/invoices', {
      key: emu.keys.live.partnerKey,
      body: { merchantId: emu.keys.live.merchantId, amount: '1' },
      idempotencyKey: key,
    });
    expect([a.status, b.status]).toEqual([201, 201]);
  });
});

describe('partner vs partner', () => {
  it("one partner cannot see, invoice or configure another's merchants", async () => {
    const mine = await merchantOf(emu.keys.test.partnerKey, 'iso-partner');
    const inv = await partnerInvoice(emu.keys.test.partnerKey, mine.merchantId);
    expect((await emu.call('GET', `/v1/partner/merchants/${mine.merchantId}`, { key: other.test })).status).toBe(404);
    expect((await emu.call('GET', `/v1/partner/invoices/${inv.id}`, { key: other.test })).status).toBe(404);
    const create = await emu.call('POST', '/v1/partner/invoices', {
      key: other.test,
      body: { merchantId: mine.merchantId, amount: '1' },
      idempotencyKey: ikey(),
    });
    expect(create.status).toBe(404);
    expect(create.body.error.code).toBe('merchant_not_found');
    expect((await emu.call('GET', '/v1/partner/merchants', { key: other.test })).body.data).toEqual([]);
    expect((await emu.call('GET', '/v1/partner/invoices', { key: other.test })).body.data).toEqual([]);
    expect((await emu.call('GET', `/v1/partner/invoices?merchantId=${mine.merchantId}`, { key: other.test })).status).toBe(404);
  });

  it('both partners may use the same externalTenantId', async () => {
    await merchantOf(emu.keys.test.partnerKey, 'shared-tenant');
    await merchantOf(other.test, 'shared-tenant');
  });

  it('the same idempotency key under two partners creates two resources', async () => {
    const key = ikey();
    const a = await emu.call('POST', '/v1/partner/merchants', {
      key: emu.keys.test.partnerKey,
      body: { externalTenantId: 'k1', name: 'a', email: 'a@b.co' },
      idempotencyKey: key,
    });
    const b = await emu.call('POST', '/v1/partner/merchants', {
      key: other.test,
      body: { externalTenantId: 'k1', name: 'a', email: 'a@b.co' },
      idempotencyKey: key,
    });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.merchantId).not.toBe(b.body.merchantId);
    expect(b.body.partnerId).not.toBe(a.body.partnerId);
  });
});

describe('merchant vs merchant', () => {
  it("a merchant key sees only its own merchant's invoices", async () => {
    const m = await merchantOf(emu.keys.test.partnerKey, 'iso-merchant');
    const keyRes = await emu.call('POST', `/__emulator/merchants/${m.merchantId}/keys`);
    const theirs = keyRes.body.merchantKey as string;
    const mine = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, body: { amount: '1' }, idempotencyKey: ikey() });
    expect((await emu.call('GET', `/v1/invoices/${mine.body.id}`, { key: theirs })).status).toBe(404);
    const theirList = await emu.call('GET', '/v1/invoices', { key: theirs });
    expect(theirList.body.data).toEqual([]);
    const theirInvoice = await emu.call('POST', '/v1/invoices', { key: theirs, body: { amount: '1' }, idempotencyKey: ikey() });
    expect(theirInvoice.status).toBe(201);
    expect(theirInvoice.body).not.toHaveProperty('merchantId');
    // The owning partner sees it, with merchantId (the partner variant).
    const asPartner = await emu.call('GET', `/v1/partner/invoices/${theirInvoice.body.id}`, { key: emu.keys.test.partnerKey });
    expect(asPartner.body.merchantId).toBe(m.merchantId);
    expect((await emu.call('GET', `/v1/invoices/${theirInvoice.body.id}`, { key: emu.keys.test.merchantKey })).status).toBe(404);
  });

  it('merchant keys never reach partner endpoints, nor partner keys merchant endpoints', async () => {
    for (const path of ['/v1/partner/merchants', '/v1/partner/invoices', '/v1/partner/webhook']) {
      expect((await emu.call('GET', path, { key: emu.keys.test.merchantKey })).status).toBe(403);
    }
    for (const path of ['/v1/invoices']) {
      expect((await emu.call('GET', path, { key: emu.keys.test.partnerKey })).status).toBe(403);
    }
  });
});

describe('lists', () => {
  it('newest first, limit and startingAfter walk every item once', async () => {
    const m = await merchantOf(emu.keys.test.partnerKey, 'iso-pages');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await partnerInvoice(emu.keys.test.partnerKey, m.merchantId)).id);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await emu.call('GET', `/v1/partner/invoices?merchantId=${m.merchantId}&limit=3${after ? `&startingAfter=${after}` : ''}`, {
        key: emu.keys.test.partnerKey,
      });
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((i: { id: string }) => i.id));
      if (!res.body.hasMore) break;
      after = seen.at(-1);
    }
    expect(seen).toEqual([...ids].reverse());
    const bad = await emu.call('GET', `/v1/partner/invoices?startingAfter=${emu.keys.live.merchantId}`, { key: emu.keys.test.partnerKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('startingAfter');
  });
});
