/**
 * CONTRACT §7: the emulator's control plane under /__emulator/, through real HTTP against a real
 * emulator, including the loopback-only rule checked through this machine's external address.
 * Calls go through the typed client (`emu.client`); raw HTTP where the test is about HTTP itself
 * (a wrong method, bodies the client's types forbid, non-JSON bodies, the caller's address, a header).
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainsFor, knownNetworkIds } from '../../src/domain/chains.js';
import { createClient, type ClientInput } from '../../src/client/typed.js';
import { ikey, request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { expectExactError } from '../helpers/api-response.js';
import { dataOf, expectExactRefused } from '../helpers/client-result.js';
import { snapshot } from '../helpers/db-snapshot.js';
import { startReceiver } from '../helpers/receiver.js';

const KEY = {
  partner: { test: /^pt_test_[0-9A-Za-z]{32}$/, live: /^pt_live_[0-9A-Za-z]{32}$/ },
  merchant: { test: /^test_[0-9A-Za-z]{32}$/, live: /^live_[0-9A-Za-z]{32}$/ },
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function externalIPv4(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) {
      if (info.family === 'IPv4' && !info.internal) return info.address;
    }
  }
  return undefined;
}

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu?.stop();
});

async function createMerchant(key: string, tenant = `tenant-${ikey()}`) {
  const body = { externalTenantId: tenant, email: 'owner@example.com', name: 'Shop' };
  return dataOf(await emu.client.test.createMerchant({ key, idempotencyKey: ikey(), body }), 201);
}

async function createPartnerInvoice(key: string, merchantId: string, extra: { networkId?: number } = {}) {
  return emu.client.test.createPartnerInvoice({ key, idempotencyKey: ikey(), body: { merchantId, amount: '10.00', ...extra } });
}

const setChains = (id: string, body: ClientInput<'setMerchantChains'>['body']) => emu.client.test.setMerchantChains({ params: { id }, body });
const newMerchantKey = async (id: string) => dataOf(await emu.client.test.createMerchantKey({ params: { id } }), 201);

describe('GET /__emulator/health', () => {
  it('answers 200 with status ok, the version, emulator time and the base URL', async () => {
    const res = await emu.client.test.getHealth();
    expect(res.requestId).toMatch(/\S/);
    const health = dataOf(res);
    expect(health.status).toBe('ok');
    expect(typeof health.version).toBe('string');
    expect(health.baseUrl).toBe(emu.url);
    expect(Math.abs(Date.parse(health.now) - emu.clock.now())).toBeLessThan(5_000);
  });

  it('needs no API key, and a wrong method is 405 with Allow', async () => {
    const res = await emu.client.test.getHealth({ key: 'not-a-key' });
    expect(res.status).toBe(200);
    // Raw HTTP: a method the operation does not have, and the Allow header.
    const wrong = await emu.call('DELETE', '/__emulator/health');
    expectExactError(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('GET');
  });
});

describe('GET /__emulator/keys', () => {
  it('returns the default keys in the formats of CONTRACT §1', async () => {
    const body = dataOf(await emu.client.test.getDefaultKeys());
    expect(body.partnerId).toMatch(UUID);
    for (const env of ['test', 'live'] as const) {
      expect(body[env].partnerKey).toMatch(KEY.partner[env]);
      expect(body[env].merchantKey).toMatch(KEY.merchant[env]);
      expect(body[env].merchantId).toMatch(UUID);
    }
    expect(body.test.merchantId).not.toBe(body.live.merchantId);
    expect(body).toEqual(JSON.parse(JSON.stringify(emu.keys)));
  });

  it('the default keys authenticate, each in its own environment', async () => {
    const keys = dataOf(await emu.client.test.getDefaultKeys());
    for (const env of ['test', 'live'] as const) {
      // A client made from the keys the control plane gave, as a local tool would make it.
      const api = createClient({ baseUrl: emu.url, partnerKey: keys[env].partnerKey, merchantKey: keys[env].merchantKey });
      const merchants = dataOf(await api.listMerchants());
      const ids = merchants.data.map((m) => m.merchantId);
      expect(ids).toContain(keys[env].merchantId);
      expect(ids).not.toContain(keys[env === 'test' ? 'live' : 'test'].merchantId);
      for (const m of merchants.data) expect(m.partnerId).toBe(keys.partnerId);

      const invoice = dataOf(await api.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
      expect(invoice.environment).toBe(env);
    }
  });
});

describe('POST /__emulator/partners', () => {
  it('creates a partner with a test and a live key, shown once', async () => {
    const created = dataOf(await emu.client.test.createPartner({ body: { name: 'Acme Payments' } }), 201);
    expect(created.partnerId).toMatch(UUID);
    expect(created.partnerId).not.toBe(emu.keys.partnerId);
    expect(created.name).toBe('Acme Payments');
    expect(created.test.partnerKey).toMatch(KEY.partner.test);
    expect(created.live.partnerKey).toMatch(KEY.partner.live);
    // Shown once: not through GET keys, and not stored in the clear anywhere in the database.
    const keys = dataOf(await emu.client.test.getDefaultKeys());
    expect(JSON.stringify(keys)).not.toContain(created.test.partnerKey);
    const dump = await snapshot(emu);
    expect(dump).not.toContain(created.test.partnerKey);
    expect(dump).not.toContain(created.live.partnerKey);
  });

  it('works without a body and refuses a bad name', async () => {
    // Raw HTTP: no body at all, which the typed client does not send for this operation.
    const bare = await emu.call('POST', '/__emulator/partners');
    expect(bare.status, bare.text).toBe(201);
    expect(typeof bare.body.name).toBe('string');
    // @ts-expect-error: a name is a string, and the client's type says so; the emulator must refuse a number too
    expectExactRefused(await emu.client.test.createPartner({ body: { name: 5 } }), 400, 'validation_failed', 'name');
    expectExactRefused(await emu.client.test.createPartner({ body: { name: '' } }), 400, 'validation_failed', 'name');
  });

  it('the new partner is isolated from the default one, both ways', async () => {
    const created = dataOf(await emu.client.test.createPartner({ body: {} }), 201);
    const other = { test: created.test.partnerKey, live: created.live.partnerKey };
    const mine = emu.keys.test.partnerKey;
    const api = emu.client.test;

    const theirMerchant = await createMerchant(other.test);
    expect(theirMerchant.partnerId).toBe(created.partnerId);
    const theirInvoice = dataOf(await createPartnerInvoice(other.test, theirMerchant.merchantId), 201);

    // The default partner sees none of it.
    expectExactRefused(await api.getMerchant({ params: { id: theirMerchant.merchantId } }), 404, 'merchant_not_found');
    expectExactRefused(await api.getPartnerInvoice({ params: { id: theirInvoice.id } }), 404, 'invoice_not_found');
    expectExactRefused(await createPartnerInvoice(mine, theirMerchant.merchantId), 404, 'merchant_not_found', 'merchantId');
    const myMerchants = dataOf(await api.listMerchants({ query: { limit: 100 } }));
    expect(myMerchants.data.map((m) => m.merchantId)).not.toContain(theirMerchant.merchantId);
    const myInvoices = dataOf(await api.listPartnerInvoices({ query: { limit: 100 } }));
    expect(myInvoices.data.map((i) => i.id)).not.toContain(theirInvoice.id);
    expect(myInvoices.data.length).toBeGreaterThan(0);

    // And the new partner sees none of the default partner's data.
    expectExactRefused(await api.getMerchant({ key: other.test, params: { id: emu.keys.test.merchantId } }), 404, 'merchant_not_found');
    expectExactRefused(await createPartnerInvoice(other.test, emu.keys.test.merchantId), 404, 'merchant_not_found', 'merchantId');
    const mineInvoice = dataOf(await createPartnerInvoice(mine, emu.keys.test.merchantId), 201);
    expectExactRefused(await api.getPartnerInvoice({ key: other.test, params: { id: mineInvoice.id } }), 404, 'invoice_not_found');
    const theirList = dataOf(await api.listMerchants({ key: other.test, query: { limit: 100 } }));
    expect(theirList.data.map((m) => m.merchantId)).toEqual([theirMerchant.merchantId]);
    const theirInvoices = dataOf(await api.listPartnerInvoices({ key: other.test, query: { limit: 100 } }));
    expect(theirInvoices.data.map((i) => i.id)).toEqual([theirInvoice.id]);

    // Webhook configurations are per partner too.
    dataOf(await api.putWebhook({ body: { url: 'http://localhost:9/hook', secret: 's'.repeat(20) } }));
    expectExactRefused(await api.getWebhook({ key: other.test }), 404, 'webhook_not_configured');

    // The new partner's live key sees nothing of its test data.
    expectExactRefused(await api.getMerchant({ key: other.live, params: { id: theirMerchant.merchantId } }), 404, 'merchant_not_found');
    expect(dataOf(await api.listMerchants({ key: other.live })).data).toEqual([]);
  });
});

describe('POST /__emulator/merchants/{id}/keys', () => {
  it('issues a working key for a test merchant that sees the merchant’s own invoices', async () => {
    const merchantId = emu.keys.test.merchantId;
    const res = await newMerchantKey(merchantId);
    expect(res.merchantId).toBe(merchantId);
    expect(res.environment).toBe('test');
    expect(res.merchantKey).toMatch(KEY.merchant.test);
    expect(res.merchantKey).not.toBe(emu.keys.test.merchantKey);

    const invoice = dataOf(await emu.client.test.createInvoice({ key: res.merchantKey, idempotencyKey: ikey(), body: { amount: '3.50' } }), 201);
    // Same merchant as the default key: it sees that invoice.
    const seen = dataOf(await emu.client.test.getInvoice({ params: { id: invoice.id } }));
    expect(seen).toEqual(invoice);
    // The old key still works.
    expect((await emu.client.test.listInvoices()).status).toBe(200);
  });

  it('issues a live key for a live merchant, and for a partner-created merchant', async () => {
    const live = await newMerchantKey(emu.keys.live.merchantId);
    expect(live.merchantKey).toMatch(KEY.merchant.live);
    const created = await createMerchant(emu.keys.test.partnerKey);
    const key = await newMerchantKey(created.merchantId);
    const theirs = createClient({ baseUrl: emu.url, merchantKey: key.merchantKey });
    const invoice = dataOf(await theirs.createInvoice({ idempotencyKey: ikey(), body: { amount: '2' } }), 201);
    const viaPartner = dataOf(await emu.client.test.getPartnerInvoice({ params: { id: invoice.id } }));
    expect(viaPartner.merchantId).toBe(created.merchantId);
    // The new merchant key cannot see the default merchant's invoices.
    const list = dataOf(await theirs.listInvoices());
    expect(list.data.map((i) => i.id)).toEqual([invoice.id]);
  });

  it('is 404 merchant_not_found for an unknown merchant', async () => {
    expectExactRefused(await emu.client.test.createMerchantKey({ params: { id: '00000000-0000-4000-8000-000000000000' } }), 404, 'merchant_not_found');
    expectExactRefused(await emu.client.test.createMerchantKey({ params: { id: 'not-a-uuid' } }), 404, 'merchant_not_found');
  });
});

describe('PUT /__emulator/merchants/{id}/chains', () => {
  const networkIdsOf = (invoice: { addresses: { networkId: number }[] }) => invoice.addresses.map((a) => a.networkId).sort((a, b) => a - b);

  it('narrows the invoice addresses, refuses a networkId outside them, and null restores every chain', async () => {
    const merchant = await createMerchant(emu.keys.test.partnerKey);
    const before = dataOf(await createPartnerInvoice(emu.keys.test.partnerKey, merchant.merchantId), 201);
    expect(networkIdsOf(before)).toEqual(knownNetworkIds('test').sort((a, b) => a - b));

    const set = dataOf(await setChains(merchant.merchantId, { networkIds: [84532, 2494104990, 84532] }));
    expect(set).toEqual({ merchantId: merchant.merchantId, environment: 'test', networkIds: [84532, 2494104990] });

    const narrowed = dataOf(await createPartnerInvoice(emu.keys.test.partnerKey, merchant.merchantId), 201);
    expect(networkIdsOf(narrowed)).toEqual([84532, 2494104990]);
    const tron = narrowed.addresses.find((a) => a.networkId === 2494104990);
    expect(tron?.family).toBe('tron');

    expectExactRefused(
      await createPartnerInvoice(emu.keys.test.partnerKey, merchant.merchantId, { networkId: 11155111 }),
      400,
      'route_not_available',
      'networkId',
    );
    const locked = dataOf(await createPartnerInvoice(emu.keys.test.partnerKey, merchant.merchantId, { networkId: 84532 }), 201);
    expect(networkIdsOf(locked)).toEqual([84532]);

    // An earlier invoice keeps its addresses.
    const old = dataOf(await emu.client.test.getPartnerInvoice({ params: { id: before.id } }));
    expect(networkIdsOf(old)).toEqual(networkIdsOf(before));

    const reset = dataOf(await setChains(merchant.merchantId, { networkIds: null }));
    expect(reset.networkIds).toBeNull();
    dataOf(await createPartnerInvoice(emu.keys.test.partnerKey, merchant.merchantId, { networkId: 11155111 }), 201);
  });

  it('applies to merchant-key invoices too', async () => {
    const merchant = await createMerchant(emu.keys.test.partnerKey);
    const key = (await newMerchantKey(merchant.merchantId)).merchantKey;
    await setChains(merchant.merchantId, { networkIds: [103] });
    const invoice = dataOf(await emu.client.test.createInvoice({ key, idempotencyKey: ikey(), body: { amount: '5.00' } }), 201);
    expect(networkIdsOf(invoice)).toEqual([103]);
    expectExactRefused(
      await emu.client.test.createInvoice({ key, idempotencyKey: ikey(), body: { amount: '5.00', networkId: 84532 } }),
      400,
      'route_not_available',
      'networkId',
    );
  });

  it('refuses unknown networkIds, other environments’ networkIds and malformed bodies with 400', async () => {
    const id = emu.keys.test.merchantId;
    expectExactRefused(await setChains(id, { networkIds: [5] }), 400, 'validation_failed', 'networkIds');
    expectExactRefused(await setChains(id, { networkIds: [84532, 999999] }), 400, 'validation_failed', 'networkIds');
    expectExactRefused(await setChains(id, { networkIds: [1] }), 400, 'validation_failed', 'networkIds'); // Ethereum mainnet is live
    const liveId = chainsFor('live')[0]!.networkId;
    expectExactRefused(await setChains(emu.keys.live.merchantId, { networkIds: [84532] }), 400, 'validation_failed', 'networkIds');
    expect((await setChains(emu.keys.live.merchantId, { networkIds: [liveId] })).status).toBe(200);
    await setChains(emu.keys.live.merchantId, { networkIds: null });
    // Raw HTTP: bodies of the wrong shape, which the client's types do not let a user write.
    const put = (body: unknown) => emu.call('PUT', `/__emulator/merchants/${id}/chains`, { body });
    expect((await put('84532')).status).toBe(400);
    expectExactError(await put({ networkIds: '84532' }), 400, 'validation_failed', 'networkIds');
    expectExactError(await put({ networkIds: [84532.5] }), 400, 'validation_failed', 'networkIds[0]');
    expectExactError(await put({}), 400, 'validation_failed', 'networkIds');
    expectExactRefused(await setChains('00000000-0000-4000-8000-000000000000', { networkIds: null }), 404, 'merchant_not_found');
    // None of this changed the merchant: its invoices still get every chain.
    const invoice = dataOf(await createPartnerInvoice(emu.keys.test.partnerKey, id), 201);
    expect(invoice.addresses).toHaveLength(knownNetworkIds('test').length);
  });
});

describe('clock', () => {
  it('GET clock reports emulator time; advance moves it forward by the given seconds', async () => {
    // The clock flows with wall time between requests: bounds come from the wall time this test
    // measured around them, never from a fixed allowance that a slow machine exceeds (issue 23).
    const w0 = Date.now();
    const before = dataOf(await emu.client.test.getClock());
    expect(typeof before.offsetSeconds).toBe('number');
    const t0 = Date.parse(before.now);
    expect(Number.isFinite(t0)).toBe(true);

    const advanced = await emu.client.test.advanceClock({ body: { seconds: 3600 } });
    const w1 = Date.now();
    const adv = dataOf(advanced);
    expect(adv.advancedSeconds).toBe(3600);
    expect(adv.offsetSeconds).toBe(before.offsetSeconds + 3600);
    const t1 = Date.parse(adv.now);
    expect(t1 - t0).toBeGreaterThanOrEqual(3600_000);
    expect(t1 - t0).toBeLessThanOrEqual(3600_000 + (w1 - w0) + 1);

    const after = dataOf(await emu.client.test.getClock());
    expect(after.offsetSeconds).toBe(before.offsetSeconds + 3600);
    expect(Date.parse(after.now)).toBeGreaterThanOrEqual(t1);

    // Resources take their times from the advanced clock.
    const created = await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1' } });
    const w2 = Date.now();
    const lifetime = Date.parse(dataOf(created, 201).expiresAt) - t1;
    expect(lifetime).toBeGreaterThanOrEqual(3600_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000 + (w2 - w0) + 1);
  });

  it.each([[{ seconds: 0 }], [{ seconds: -5 }], [{ seconds: '10' }], [{ seconds: null }], [{ seconds: true }], [{ seconds: [10] }], [{}]])(
    'advance with %j is 400 validation_failed naming seconds, and the clock does not move',
    async (body) => {
      // Raw HTTP for the advance: most of these bodies are ones the client's types forbid.
      const before = dataOf(await emu.client.test.getClock()).offsetSeconds;
      expectExactError(await emu.call('POST', '/__emulator/clock/advance', { body }), 400, 'validation_failed', 'seconds');
      expect(dataOf(await emu.client.test.getClock()).offsetSeconds).toBe(before);
    },
  );

  // Raw HTTP: the body's bytes and content type are the point.
  it('advance refuses a body that is not JSON', async () => {
    expectExactError(
      await emu.call('POST', '/__emulator/clock/advance', { raw: 'seconds=5', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_json',
    );
    expectExactError(
      await emu.call('POST', '/__emulator/clock/advance', { raw: '{"seconds":5}', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });
});

describe('POST /__emulator/reset', () => {
  it('empties the data and keeps the default keys', async () => {
    const emu2 = await startTestEmulator();
    try {
      const keys = JSON.parse(JSON.stringify(emu2.keys));
      const { test, live } = emu2.client;
      const partner = dataOf(await test.createPartner({ body: {} }), 201);
      const merchant = dataOf(
        await test.createMerchant({ idempotencyKey: 'same-key', body: { externalTenantId: 't-1', email: 'a@example.com', name: 'A' } }),
        201,
      );
      const invoice = dataOf(await test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
      await live.putWebhook({ body: { url: 'https://example.com/h', secret: 'x'.repeat(16) } });

      const res = dataOf(await test.resetEmulator());
      expect(res.keys).toEqual(keys);
      expect(dataOf(await test.getDefaultKeys())).toEqual(keys);

      const merchants = dataOf(await test.listMerchants());
      expect(merchants.data.map((m) => m.merchantId)).toEqual([keys.test.merchantId]);
      expect(dataOf(await test.listInvoices()).data).toEqual([]);
      expectExactRefused(await test.getInvoice({ params: { id: invoice.id } }), 404, 'invoice_not_found');
      expectExactRefused(await live.getWebhook(), 404, 'webhook_not_configured');
      // Partners created through the control plane are gone with their keys.
      expectExactRefused(await test.listMerchants({ key: partner.test.partnerKey }), 401, 'unauthorized');
      // Idempotency memory is data too: the same key now creates a new merchant. Raw HTTP: the
      // answer must carry no Idempotent-Replayed header at all.
      const again = await emu2.call('POST', '/v1/partner/merchants', {
        key: keys.test.partnerKey,
        idempotencyKey: 'same-key',
        body: { externalTenantId: 't-1', email: 'a@example.com', name: 'A' },
      });
      expect(again.status, again.text).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      expect(again.body.merchantId).not.toBe(merchant.merchantId);
    } finally {
      await emu2.stop();
    }
  });
  it('answers every reset in a row with the default keys stored and working', async () => {
    // On PostgreSQL the TRUNCATE and the defaults' transaction ran on two connections, unordered:
    // the defaults could land first and be emptied (401s after the reset), or the two deadlock (a 500).
    const emu2 = await startTestEmulator();
    try {
      const { test } = emu2.client;
      for (let i = 0; i < 30; i++) {
        dataOf(await test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
        dataOf(await test.resetEmulator());
        expect(await emu2.query('SELECT COUNT(*) AS n FROM api_keys'), `after reset ${i + 1}`).toEqual([{ n: 4 }]);
      }
      dataOf(await test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
    } finally {
      await emu2.stop();
    }
  });

  it('answers resets sent among creates, and the creates, without a 500', async () => {
    // On PostgreSQL the TRUNCATE took its tables' locks one by one while creates held some of them
    // and waited for others: "deadlock detected", and a 500 for the reset or a create.
    const emu2 = await startTestEmulator();
    const rx = await startReceiver();
    const internal: string[] = [];
    emu2.on((e) => e.type === 'error' && internal.push(e.message));
    try {
      const { test } = emu2.client;
      for (let round = 0; round < 10; round++) {
        dataOf(await test.putWebhook({ body: { url: rx.url, secret: 'x'.repeat(20) } }));
        const creates = Array.from({ length: 8 }, () => test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }));
        const reset = test.resetEmulator();
        const answers = await Promise.all([reset, ...creates]);
        // A create answered before or after the reset: 201 either way (the reset keeps the keys).
        expect(
          answers.map((a) => a.status),
          `round ${round + 1}: ${internal.join('; ')}`,
        ).toEqual([200, ...creates.map(() => 201)]);
      }
      expect(internal).toEqual([]);
    } finally {
      await emu2.stop();
      await rx.close();
    }
  });
});

// Raw HTTP for the external calls: the caller's address and the Host it sends are the point.
describe('loopback rule', () => {
  const address = externalIPv4();

  it('has a non-internal IPv4 address to test with', () => {
    expect(address, 'this machine has no non-internal IPv4 address; os.networkInterfaces() found none to call the emulator through').toBeDefined();
  });

  it('answers 403 to non-loopback clients unless the control plane is exposed', async () => {
    if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
    // Reached by its LAN address, which a wildcard bind does not make an allowed host (CONTRACT §8).
    const open = await startTestEmulator({ host: '0.0.0.0', allowedHosts: [address] });
    try {
      const external = `http://${address}:${open.port}`;
      for (const path of ['/__emulator/health', '/__emulator/keys', '/__emulator/clock']) {
        const res = await request(external, 'GET', path);
        expectExactError(res, 403, 'control_plane_forbidden');
        expect(res.text).not.toContain(open.keys.test.partnerKey);
      }
      const before = dataOf(await open.client.test.getClock()).offsetSeconds;
      expectExactError(await request(external, 'POST', '/__emulator/clock/advance', { body: { seconds: 60 } }), 403, 'control_plane_forbidden');
      expectExactError(await request(external, 'POST', '/__emulator/clock/reset'), 403, 'control_plane_forbidden');
      expectExactError(await request(external, 'POST', '/__emulator/partners', { body: {} }), 403, 'control_plane_forbidden');
      expect(dataOf(await open.client.test.getClock()).offsetSeconds).toBe(before);
      expect(await open.query('SELECT COUNT(*) AS n FROM partners')).toEqual([{ n: 1 }]);

      const local = await request(`http://127.0.0.1:${open.port}`, 'GET', '/__emulator/health');
      expect(local.status).toBe(200);
      expect(local.body.status).toBe('ok');

      // The rule is for the control plane only: the API answers external clients.
      const api = await request(external, 'GET', '/v1/partner/merchants', { key: open.keys.test.partnerKey });
      expect(api.status, api.text).toBe(200);
    } finally {
      await open.stop();
    }
  });

  it('answers external clients when started with exposeControlPlane', async () => {
    if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
    const exposed = await startTestEmulator({ host: '0.0.0.0', allowedHosts: [address], config: { exposeControlPlane: true } });
    try {
      const res = await request(`http://${address}:${exposed.port}`, 'GET', '/__emulator/health');
      expect(res.status, res.text).toBe(200);
      expect(res.body.status).toBe('ok');
    } finally {
      await exposed.stop();
    }
  });
});
