/**
 * CONTRACT §7: the emulator's control plane under /__emulator/, through real HTTP against a real
 * emulator, including the loopback-only rule checked through this machine's external address.
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainsFor, knownNetworkIds } from '../../src/domain/chains.js';
import { ikey, request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { expectExactError } from '../helpers/api-response.js';

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
  const res = await emu.call('POST', '/v1/partner/merchants', {
    key,
    idempotencyKey: ikey(),
    body: { externalTenantId: tenant, email: 'owner@example.com', name: 'Shop' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { merchantId: string; partnerId: string };
}

async function createPartnerInvoice(key: string, merchantId: string, extra: Record<string, unknown> = {}) {
  return emu.call('POST', '/v1/partner/invoices', { key, idempotencyKey: ikey(), body: { merchantId, amount: '10.00', ...extra } });
}

describe('GET /__emulator/health', () => {
  it('answers 200 with status ok, the version, emulator time and the base URL', async () => {
    const res = await emu.call('GET', '/__emulator/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toMatch(/\S/);
    expect(res.body.status).toBe('ok');
    expect(typeof res.body.version).toBe('string');
    expect(res.body.baseUrl).toBe(emu.url);
    expect(Math.abs(Date.parse(res.body.now) - emu.clock.now())).toBeLessThan(5_000);
  });

  it('needs no API key, and a wrong method is 405 with Allow', async () => {
    const res = await emu.call('GET', '/__emulator/health', { key: 'not-a-key' });
    expect(res.status).toBe(200);
    const wrong = await emu.call('DELETE', '/__emulator/health');
    expectExactError(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('GET');
  });
});

describe('GET /__emulator/keys', () => {
  it('returns the default keys in the formats of CONTRACT §1', async () => {
    const res = await emu.call('GET', '/__emulator/keys');
    expect(res.status).toBe(200);
    const body = res.body;
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
    const { body: keys } = await emu.call('GET', '/__emulator/keys');
    for (const env of ['test', 'live'] as const) {
      const merchants = await emu.call('GET', '/v1/partner/merchants', { key: keys[env].partnerKey });
      expect(merchants.status, merchants.text).toBe(200);
      const ids = merchants.body.data.map((m: { merchantId: string }) => m.merchantId);
      expect(ids).toContain(keys[env].merchantId);
      expect(ids).not.toContain(keys[env === 'test' ? 'live' : 'test'].merchantId);
      for (const m of merchants.body.data) expect(m.partnerId).toBe(keys.partnerId);

      const invoice = await emu.call('POST', '/v1/invoices', { key: keys[env].merchantKey, idempotencyKey: ikey(), body: { amount: '1.00' } });
      expect(invoice.status, invoice.text).toBe(201);
      expect(invoice.body.environment).toBe(env);
    }
  });
});

describe('POST /__emulator/partners', () => {
  it('creates a partner with a test and a live key, shown once', async () => {
    const res = await emu.call('POST', '/__emulator/partners', { body: { name: 'Acme Payments' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.partnerId).toMatch(UUID);
    expect(res.body.partnerId).not.toBe(emu.keys.partnerId);
    expect(res.body.name).toBe('Acme Payments');
    expect(res.body.test.partnerKey).toMatch(KEY.partner.test);
    expect(res.body.live.partnerKey).toMatch(KEY.partner.live);
    // Shown once: not through GET keys, and not stored in the clear anywhere in the database.
    const keys = await emu.call('GET', '/__emulator/keys');
    expect(keys.text).not.toContain(res.body.test.partnerKey);
    const dump = JSON.stringify(
      (emu.store.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) =>
        emu.store.sqlite.prepare(`SELECT * FROM "${t.name}"`).all(),
      ),
    );
    expect(dump).not.toContain(res.body.test.partnerKey);
    expect(dump).not.toContain(res.body.live.partnerKey);
  });

  it('works without a body and refuses a bad name', async () => {
    const bare = await emu.call('POST', '/__emulator/partners');
    expect(bare.status, bare.text).toBe(201);
    expect(typeof bare.body.name).toBe('string');
    expectExactError(await emu.call('POST', '/__emulator/partners', { body: { name: 5 } }), 400, 'validation_failed', 'name');
    expectExactError(await emu.call('POST', '/__emulator/partners', { body: { name: '' } }), 400, 'validation_failed', 'name');
  });

  it('the new partner is isolated from the default one, both ways', async () => {
    const created = await emu.call('POST', '/__emulator/partners', { body: {} });
    const other = { test: created.body.test.partnerKey as string, live: created.body.live.partnerKey as string };
    const mine = emu.keys.test.partnerKey;

    const theirMerchant = await createMerchant(other.test);
    expect(theirMerchant.partnerId).toBe(created.body.partnerId);
    const theirInvoice = await createPartnerInvoice(other.test, theirMerchant.merchantId);
    expect(theirInvoice.status, theirInvoice.text).toBe(201);

    // The default partner sees none of it.
    expectExactError(await emu.call('GET', `/v1/partner/merchants/${theirMerchant.merchantId}`, { key: mine }), 404, 'merchant_not_found');
    expectExactError(await emu.call('GET', `/v1/partner/invoices/${theirInvoice.body.id}`, { key: mine }), 404, 'invoice_not_found');
    expectExactError(await createPartnerInvoice(mine, theirMerchant.merchantId), 404, 'merchant_not_found', 'merchantId');
    const myMerchants = await emu.call('GET', '/v1/partner/merchants?limit=100', { key: mine });
    expect(myMerchants.body.data.map((m: { merchantId: string }) => m.merchantId)).not.toContain(theirMerchant.merchantId);
    const myInvoices = await emu.call('GET', '/v1/partner/invoices?limit=100', { key: mine });
    expect(myInvoices.body.data.map((i: { id: string }) => i.id)).not.toContain(theirInvoice.body.id);
    expect(myInvoices.body.data.length).toBeGreaterThan(0);

    // And the new partner sees none of the default partner's data.
    expectExactError(await emu.call('GET', `/v1/partner/merchants/${emu.keys.test.merchantId}`, { key: other.test }), 404, 'merchant_not_found');
    expectExactError(await createPartnerInvoice(other.test, emu.keys.test.merchantId), 404, 'merchant_not_found', 'merchantId');
    const mineInvoice = await createPartnerInvoice(mine, emu.keys.test.merchantId);
    expect(mineInvoice.status).toBe(201);
    expectExactError(await emu.call('GET', `/v1/partner/invoices/${mineInvoice.body.id}`, { key: other.test }), 404, 'invoice_not_found');
    const theirList = await emu.call('GET', '/v1/partner/merchants?limit=100', { key: other.test });
    expect(theirList.body.data.map((m: { merchantId: string }) => m.merchantId)).toEqual([theirMerchant.merchantId]);
    const theirInvoices = await emu.call('GET', '/v1/partner/invoices?limit=100', { key: other.test });
    expect(theirInvoices.body.data.map((i: { id: string }) => i.id)).toEqual([theirInvoice.body.id]);

    // Webhook configurations are per partner too.
    const put = await emu.call('PUT', '/v1/partner/webhook', { key: mine, body: { url: 'http://localhost:9/hook', secret: 's'.repeat(20) } });
    expect(put.status, put.text).toBe(200);
    expectExactError(await emu.call('GET', '/v1/partner/webhook', { key: other.test }), 404, 'webhook_not_configured');

    // The new partner's live key sees nothing of its test data.
    expectExactError(await emu.call('GET', `/v1/partner/merchants/${theirMerchant.merchantId}`, { key: other.live }), 404, 'merchant_not_found');
    const liveList = await emu.call('GET', '/v1/partner/merchants', { key: other.live });
    expect(liveList.status).toBe(200);
    expect(liveList.body.data).toEqual([]);
  });
});

describe('POST /__emulator/merchants/{id}/keys', () => {
  it('issues a working key for a test merchant that sees the merchant’s own invoices', async () => {
    const merchantId = emu.keys.test.merchantId;
    const res = await emu.call('POST', `/__emulator/merchants/${merchantId}/keys`);
    expect(res.status, res.text).toBe(201);
    expect(res.body.merchantId).toBe(merchantId);
    expect(res.body.environment).toBe('test');
    expect(res.body.merchantKey).toMatch(KEY.merchant.test);
    expect(res.body.merchantKey).not.toBe(emu.keys.test.merchantKey);

    const invoice = await emu.call('POST', '/v1/invoices', { key: res.body.merchantKey, idempotencyKey: ikey(), body: { amount: '3.50' } });
    expect(invoice.status, invoice.text).toBe(201);
    // Same merchant as the default key: it sees that invoice.
    const seen = await emu.call('GET', `/v1/invoices/${invoice.body.id}`, { key: emu.keys.test.merchantKey });
    expect(seen.status).toBe(200);
    expect(seen.body).toEqual(invoice.body);
    // The old key still works.
    expect((await emu.call('GET', '/v1/invoices', { key: emu.keys.test.merchantKey })).status).toBe(200);
  });

  it('issues a live key for a live merchant, and for a partner-created merchant', async () => {
    const live = await emu.call('POST', `/__emulator/merchants/${emu.keys.live.merchantId}/keys`);
    expect(live.status).toBe(201);
    expect(live.body.merchantKey).toMatch(KEY.merchant.live);
    const created = await createMerchant(emu.keys.test.partnerKey);
    const key = await emu.call('POST', `/__emulator/merchants/${created.merchantId}/keys`);
    expect(key.status).toBe(201);
    const invoice = await emu.call('POST', '/v1/invoices', { key: key.body.merchantKey, idempotencyKey: ikey(), body: { amount: '2' } });
    expect(invoice.status, invoice.text).toBe(201);
    const viaPartner = await emu.call('GET', `/v1/partner/invoices/${invoice.body.id}`, { key: emu.keys.test.partnerKey });
    expect(viaPartner.body.merchantId).toBe(created.merchantId);
    // The new merchant key cannot see the default merchant's invoices.
    const list = await emu.call('GET', '/v1/invoices', { key: key.body.merchantKey });
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([invoice.body.id]);
  });

  it('is 404 merchant_not_found for an unknown merchant', async () => {
    expectExactError(await emu.call('POST', '/__emulator/merchants/00000000-0000-4000-8000-000000000000/keys'), 404, 'merchant_not_found');
    expectExactError(await emu.call('POST', '/__emulator/merchants/not-a-uuid/keys'), 404, 'merchant_not_found');
  });
});

describe('PUT /__emulator/merchants/{id}/chains', () => {
  const networkIdsOf = (invoice: { addresses: { networkId: number }[] }) => invoice.addresses.map((a) => a.networkId).sort((a, b) => a - b);

  it('narrows the invoice addresses, refuses a networkId outside them, and null restores every chain', async () => {
    const merchant = await createMerchant(emu.keys.test.partnerKey);
    const before = await createPartnerInvoice(emu.keys.test.partnerKey, merchant.merchantId);
    expect(networkIdsOf(before.body)).toEqual(knownNetworkIds('test').sort((a, b) => a - b));

    const set = await emu.call('PUT', `/__emulator/merchants/${merchant.merchantId}/chains`, { body: { networkIds: [84532, 2494104990, 84532] } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ merchantId: merchant.merchantId, environment: 'test', networkIds: [84532, 2494104990] });

    const narrowed = await createPartnerInvoice(emu.keys.test.partnerKey, merchant.merchantId);
    expect(narrowed.status, narrowed.text).toBe(201);
    expect(networkIdsOf(narrowed.body)).toEqual([84532, 2494104990]);
    const tron = narrowed.body.addresses.find((a: { networkId: number }) => a.networkId === 2494104990);
    expect(tron.family).toBe('tron');

    expectExactError(
      await createPartnerInvoice(emu.keys.test.partnerKey, merchant.merchantId, { networkId: 11155111 }),
      400,
      'route_not_available',
      'networkId',
    );
    const locked = await createPartnerInvoice(emu.keys.test.partnerKey, merchant.merchantId, { networkId: 84532 });
    expect(locked.status, locked.text).toBe(201);
    expect(networkIdsOf(locked.body)).toEqual([84532]);

    // An earlier invoice keeps its addresses.
    const old = await emu.call('GET', `/v1/partner/invoices/${before.body.id}`, { key: emu.keys.test.partnerKey });
    expect(networkIdsOf(old.body)).toEqual(networkIdsOf(before.body));

    const reset = await emu.call('PUT', `/__emulator/merchants/${merchant.merchantId}/chains`, { body: { networkIds: null } });
    expect(reset.status).toBe(200);
    expect(reset.body.networkIds).toBeNull();
    const all = await createPartnerInvoice(emu.keys.test.partnerKey, merchant.merchantId, { networkId: 11155111 });
    expect(all.status, all.text).toBe(201);
  });

  it('applies to merchant-key invoices too', async () => {
    const merchant = await createMerchant(emu.keys.test.partnerKey);
    const key = (await emu.call('POST', `/__emulator/merchants/${merchant.merchantId}/keys`)).body.merchantKey as string;
    await emu.call('PUT', `/__emulator/merchants/${merchant.merchantId}/chains`, { body: { networkIds: [103] } });
    const invoice = await emu.call('POST', '/v1/invoices', { key, idempotencyKey: ikey(), body: { amount: '5.00' } });
    expect(invoice.status, invoice.text).toBe(201);
    expect(networkIdsOf(invoice.body)).toEqual([103]);
    expectExactError(
      await emu.call('POST', '/v1/invoices', { key, idempotencyKey: ikey(), body: { amount: '5.00', networkId: 84532 } }),
      400,
      'route_not_available',
      'networkId',
    );
  });

  it('refuses unknown networkIds, other environments’ networkIds and malformed bodies with 400', async () => {
    const id = emu.keys.test.merchantId;
    const put = (body: unknown) => emu.call('PUT', `/__emulator/merchants/${id}/chains`, { body });
    expectExactError(await put({ networkIds: [5] }), 400, 'validation_failed', 'networkIds');
    expectExactError(await put({ networkIds: [84532, 999999] }), 400, 'validation_failed', 'networkIds');
    expectExactError(await put({ networkIds: [1] }), 400, 'validation_failed', 'networkIds'); // Ethereum mainnet is live
    const liveId = chainsFor('live')[0]!.networkId;
    expectExactError(
      await emu.call('PUT', `/__emulator/merchants/${emu.keys.live.merchantId}/chains`, { body: { networkIds: [84532] } }),
      400,
      'validation_failed',
      'networkIds',
    );
    expect((await emu.call('PUT', `/__emulator/merchants/${emu.keys.live.merchantId}/chains`, { body: { networkIds: [liveId] } })).status).toBe(200);
    await emu.call('PUT', `/__emulator/merchants/${emu.keys.live.merchantId}/chains`, { body: { networkIds: null } });
    expect((await put('84532')).status).toBe(400);
    expectExactError(await put({ networkIds: '84532' }), 400, 'validation_failed', 'networkIds');
    expectExactError(await put({ networkIds: [84532.5] }), 400, 'validation_failed', 'networkIds[0]');
    expectExactError(await put({}), 400, 'validation_failed', 'networkIds');
    expectExactError(
      await emu.call('PUT', '/__emulator/merchants/00000000-0000-4000-8000-000000000000/chains', { body: { networkIds: null } }),
      404,
      'merchant_not_found',
    );
    // None of this changed the merchant: its invoices still get every chain.
    const invoice = await createPartnerInvoice(emu.keys.test.partnerKey, id);
    expect(invoice.body.addresses).toHaveLength(knownNetworkIds('test').length);
  });
});

describe('clock', () => {
  it('GET clock reports emulator time; advance moves it forward by the given seconds', async () => {
    // The clock flows with wall time between requests: bounds come from the wall time this test
    // measured around them, never from a fixed allowance that a slow machine exceeds (issue 23).
    const w0 = Date.now();
    const before = await emu.call('GET', '/__emulator/clock');
    expect(before.status).toBe(200);
    expect(typeof before.body.offsetSeconds).toBe('number');
    const t0 = Date.parse(before.body.now);
    expect(Number.isFinite(t0)).toBe(true);

    const adv = await emu.call('POST', '/__emulator/clock/advance', { body: { seconds: 3600 } });
    const w1 = Date.now();
    expect(adv.status, adv.text).toBe(200);
    expect(adv.body.advancedSeconds).toBe(3600);
    expect(adv.body.offsetSeconds).toBe(before.body.offsetSeconds + 3600);
    const t1 = Date.parse(adv.body.now);
    expect(t1 - t0).toBeGreaterThanOrEqual(3600_000);
    expect(t1 - t0).toBeLessThanOrEqual(3600_000 + (w1 - w0) + 1);

    const after = await emu.call('GET', '/__emulator/clock');
    expect(after.body.offsetSeconds).toBe(before.body.offsetSeconds + 3600);
    expect(Date.parse(after.body.now)).toBeGreaterThanOrEqual(t1);

    // Resources take their times from the advanced clock.
    const invoice = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '1' } });
    const w2 = Date.now();
    const lifetime = Date.parse(invoice.body.expiresAt) - t1;
    expect(lifetime).toBeGreaterThanOrEqual(3600_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000 + (w2 - w0) + 1);
  });

  it.each([[{ seconds: 0 }], [{ seconds: -5 }], [{ seconds: '10' }], [{ seconds: null }], [{ seconds: true }], [{ seconds: [10] }], [{}]])(
    'advance with %j is 400 validation_failed naming seconds, and the clock does not move',
    async (body) => {
      const before = (await emu.call('GET', '/__emulator/clock')).body.offsetSeconds;
      expectExactError(await emu.call('POST', '/__emulator/clock/advance', { body }), 400, 'validation_failed', 'seconds');
      expect((await emu.call('GET', '/__emulator/clock')).body.offsetSeconds).toBe(before);
    },
  );

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
      const partner = await emu2.call('POST', '/__emulator/partners', { body: {} });
      const merchant = await emu2.call('POST', '/v1/partner/merchants', {
        key: keys.test.partnerKey,
        idempotencyKey: 'same-key',
        body: { externalTenantId: 't-1', email: 'a@example.com', name: 'A' },
      });
      expect(merchant.status).toBe(201);
      const invoice = await emu2.call('POST', '/v1/invoices', { key: keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '1.00' } });
      expect(invoice.status).toBe(201);
      await emu2.call('PUT', '/v1/partner/webhook', { key: keys.live.partnerKey, body: { url: 'https://example.com/h', secret: 'x'.repeat(16) } });

      const res = await emu2.call('POST', '/__emulator/reset');
      expect(res.status, res.text).toBe(200);
      expect(res.body.keys).toEqual(keys);
      expect((await emu2.call('GET', '/__emulator/keys')).body).toEqual(keys);

      const merchants = await emu2.call('GET', '/v1/partner/merchants', { key: keys.test.partnerKey });
      expect(merchants.status).toBe(200);
      expect(merchants.body.data.map((m: { merchantId: string }) => m.merchantId)).toEqual([keys.test.merchantId]);
      expect((await emu2.call('GET', '/v1/invoices', { key: keys.test.merchantKey })).body.data).toEqual([]);
      expectExactError(await emu2.call('GET', `/v1/invoices/${invoice.body.id}`, { key: keys.test.merchantKey }), 404, 'invoice_not_found');
      expectExactError(await emu2.call('GET', '/v1/partner/webhook', { key: keys.live.partnerKey }), 404, 'webhook_not_configured');
      // Partners created through the control plane are gone with their keys.
      expectExactError(await emu2.call('GET', '/v1/partner/merchants', { key: partner.body.test.partnerKey }), 401, 'unauthorized');
      // Idempotency memory is data too: the same key now creates a new merchant.
      const again = await emu2.call('POST', '/v1/partner/merchants', {
        key: keys.test.partnerKey,
        idempotencyKey: 'same-key',
        body: { externalTenantId: 't-1', email: 'a@example.com', name: 'A' },
      });
      expect(again.status, again.text).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      expect(again.body.merchantId).not.toBe(merchant.body.merchantId);
    } finally {
      await emu2.stop();
    }
  });
});

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
      const before = (await open.call('GET', '/__emulator/clock')).body.offsetSeconds;
      expectExactError(await request(external, 'POST', '/__emulator/clock/advance', { body: { seconds: 60 } }), 403, 'control_plane_forbidden');
      expectExactError(await request(external, 'POST', '/__emulator/partners', { body: {} }), 403, 'control_plane_forbidden');
      expect((await open.call('GET', '/__emulator/clock')).body.offsetSeconds).toBe(before);
      expect(open.store.sqlite.prepare('SELECT COUNT(*) AS n FROM partners').get()).toEqual({ n: 1 });

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
