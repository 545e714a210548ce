import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createClient } from '../../src/client/typed.js';
import { dataOf, expectRefused } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/** CONTRACT §1–2: test vs live, partner vs partner, merchant vs merchant, key kinds. */
let emu: TestEmulator;
let other: { test: string; live: string }; // a second partner's keys
let otherApi: Client; // that partner's test client, as its own integration would make it

beforeAll(async () => {
  emu = await startTestEmulator();
  const res = dataOf(await emu.client.test.createPartner({ body: { name: 'Other' } }), 201);
  other = { test: res.test.partnerKey, live: res.live.partnerKey };
  otherApi = createClient({ baseUrl: emu.url, partnerKey: other.test });
});
afterAll(() => emu.stop());

async function merchantOf(partnerKey: string, tenant: string) {
  const res = await emu.client.test.createMerchant({
    key: partnerKey,
    body: { externalTenantId: tenant, name: tenant, email: `${tenant}@example.com` },
    idempotencyKey: ikey(),
  });
  return dataOf(res, 201);
}

async function partnerInvoice(partnerKey: string, merchantId: string) {
  return dataOf(await emu.client.test.createPartnerInvoice({ key: partnerKey, body: { merchantId, amount: '1.00' }, idempotencyKey: ikey() }), 201);
}

describe('test vs live', () => {
  it('a merchant, its invoices and the webhook created with test keys are invisible with live keys, and back', async () => {
    const { test, live } = emu.client;
    const m = await merchantOf(emu.keys.test.partnerKey, 'iso-env');
    const inv = await partnerInvoice(emu.keys.test.partnerKey, m.merchantId);
    expect(inv.environment).toBe('test');
    dataOf(await test.putWebhook({ body: { url: 'http://localhost:9/h', secret: 'x'.repeat(16) } }));

    expect((await live.getMerchant({ params: { id: m.merchantId } })).status).toBe(404);
    expect((await live.getPartnerInvoice({ params: { id: inv.id } })).status).toBe(404);
    expect((await live.getWebhook()).status).toBe(404);
    const liveList = dataOf(await live.listPartnerInvoices({ query: { limit: 100 } }));
    expect(liveList.data.map((i) => i.id)).not.toContain(inv.id);
    const liveMerchants = dataOf(await live.listMerchants({ query: { limit: 100 } }));
    expect(liveMerchants.data.every((x) => x.merchantId !== m.merchantId)).toBe(true);

    const liveInv = dataOf(await live.createInvoice({ body: { amount: '2' }, idempotencyKey: ikey() }), 201);
    expect(liveInv.environment).toBe('live');
    expect((await test.getInvoice({ params: { id: liveInv.id } })).status).toBe(404);
    expect((await test.getPartnerInvoice({ params: { id: liveInv.id } })).status).toBe(404);
  });

  it('live invoices are offered on live chains only, test on test chains', async () => {
    const live = dataOf(await emu.client.live.createInvoice({ body: { amount: '2' }, idempotencyKey: ikey() }), 201);
    expect(live.addresses.map((a) => a.networkId)).toEqual([1, 137, 8453, 42161, 10, 56, 728126428, 101]);
    const test = dataOf(await emu.client.test.createInvoice({ body: { amount: '2' }, idempotencyKey: ikey() }), 201);
    expect(test.addresses.map((a) => a.networkId)).toEqual([11155111, 84532, 80002, 421614, 2494104990, 103]);
  });

  it('an idempotency key used in test does not replay in live', async () => {
    const key = ikey();
    const a = await emu.client.test.createPartnerInvoice({ body: { merchantId: emu.keys.test.merchantId, amount: '1' }, idempotencyKey: key });
    const b = await emu.client.live.createPartnerInvoice({ body: { merchantId: emu.keys.live.merchantId, amount: '1' }, idempotencyKey: key });
    expect([a.status, b.status]).toEqual([201, 201]);
  });
});

describe('partner vs partner', () => {
  it("one partner cannot see, invoice or configure another's merchants", async () => {
    const mine = await merchantOf(emu.keys.test.partnerKey, 'iso-partner');
    const inv = await partnerInvoice(emu.keys.test.partnerKey, mine.merchantId);
    expect((await otherApi.getMerchant({ params: { id: mine.merchantId } })).status).toBe(404);
    expect((await otherApi.getPartnerInvoice({ params: { id: inv.id } })).status).toBe(404);
    const create = await otherApi.createPartnerInvoice({ body: { merchantId: mine.merchantId, amount: '1' }, idempotencyKey: ikey() });
    expectRefused(create, 404, 'merchant_not_found');
    expect(dataOf(await otherApi.listMerchants()).data).toEqual([]);
    expect(dataOf(await otherApi.listPartnerInvoices()).data).toEqual([]);
    expect((await otherApi.listPartnerInvoices({ query: { merchantId: mine.merchantId } })).status).toBe(404);
  });

  it('both partners may use the same externalTenantId', async () => {
    await merchantOf(emu.keys.test.partnerKey, 'shared-tenant');
    await merchantOf(other.test, 'shared-tenant');
  });

  it('the same idempotency key under two partners creates two resources', async () => {
    const key = ikey();
    const a = dataOf(await emu.client.test.createMerchant({ body: { externalTenantId: 'k1', name: 'a', email: 'a@b.co' }, idempotencyKey: key }), 201);
    const b = dataOf(await otherApi.createMerchant({ body: { externalTenantId: 'k1', name: 'a', email: 'a@b.co' }, idempotencyKey: key }), 201);
    expect(a.merchantId).not.toBe(b.merchantId);
    expect(b.partnerId).not.toBe(a.partnerId);
  });
});

describe('merchant vs merchant', () => {
  it("a merchant key sees only its own merchant's invoices", async () => {
    const m = await merchantOf(emu.keys.test.partnerKey, 'iso-merchant');
    const theirs = dataOf(await emu.client.test.createMerchantKey({ params: { id: m.merchantId } }), 201).merchantKey;
    const theirApi = createClient({ baseUrl: emu.url, merchantKey: theirs });
    const mine = dataOf(await emu.client.test.createInvoice({ body: { amount: '1' }, idempotencyKey: ikey() }), 201);
    expect((await theirApi.getInvoice({ params: { id: mine.id } })).status).toBe(404);
    expect(dataOf(await theirApi.listInvoices()).data).toEqual([]);
    const theirInvoice = dataOf(await theirApi.createInvoice({ body: { amount: '1' }, idempotencyKey: ikey() }), 201);
    expect(theirInvoice).not.toHaveProperty('merchantId');
    // The owning partner sees it, with merchantId (the partner variant).
    const asPartner = dataOf(await emu.client.test.getPartnerInvoice({ params: { id: theirInvoice.id } }));
    expect(asPartner.merchantId).toBe(m.merchantId);
    expect((await emu.client.test.getInvoice({ params: { id: theirInvoice.id } })).status).toBe(404);
  });

  it('merchant keys never reach partner endpoints, nor partner keys merchant endpoints', async () => {
    const api = emu.client.test;
    const { merchantKey, partnerKey } = emu.keys.test;
    for (const call of [
      () => api.listMerchants({ key: merchantKey }),
      () => api.listPartnerInvoices({ key: merchantKey }),
      () => api.getWebhook({ key: merchantKey }),
    ]) {
      expect((await call()).status).toBe(403);
    }
    for (const call of [() => api.listInvoices({ key: partnerKey })]) {
      expect((await call()).status).toBe(403);
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
      const res = dataOf(await emu.client.test.listPartnerInvoices({ query: { merchantId: m.merchantId, limit: 3, startingAfter: after } }));
      seen.push(...res.data.map((i) => i.id));
      if (!res.hasMore) break;
      after = seen.at(-1);
    }
    expect(seen).toEqual([...ids].reverse());
    const bad = await emu.client.test.listPartnerInvoices({ query: { startingAfter: emu.keys.live.merchantId } });
    expect(bad.status).toBe(400);
    expect(!bad.ok && bad.error.param).toBe('startingAfter');
  });
});
