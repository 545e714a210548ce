/**
 * Data outlives the process: everything written before `stop()` is there after `startEmulator` on
 * the same SQLite file (a real file in a temp folder), including idempotency memory, the clock
 * offset and the default identity. Also `reset` and the `reset: true` start option.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import { generateKey } from '../../src/domain/keys.js';
import { internalsOf } from '../../src/server/internals.js';
import { startEmulator, type Emulator, type StartEmulatorOptions } from '../../src/server/start.js';
import { createClient } from '../../src/client/typed.js';
import { ikey, request, type ApiResponse } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';
import { expectError } from '../helpers/api-response.js';
import { dataOf, expectRefused } from '../helpers/client-result.js';

const dir = tempDir('svc-restart-');
let fileCounter = 0;
const freshFile = () => path.join(dir, `db-${++fileCounter}`, 'emulator.sqlite');

const running: Emulator[] = [];
async function start(options: StartEmulatorOptions): Promise<Emulator> {
  const emu = await startEmulator({ port: 0, ...options });
  running.push(emu);
  return emu;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.stop()));
});

/** Straight to the listening port (emu.url is the public URL when one is given). */
const call = (emu: Emulator, method: string, p: string, options: Parameters<typeof request>[3] = {}) =>
  request(`http://127.0.0.1:${emu.port}`, method, p, options);
/**
 * The typed client, straight to the listening port too; no keys of its own, as these tests name the
 * key of each call (keys change across restarts and pins). Raw `call` stays where a replay is
 * compared byte for byte with its first answer.
 */
const api = (emu: Emulator) => createClient({ baseUrl: `http://127.0.0.1:${emu.port}` });

describe('restart on the same file', () => {
  it('keeps merchants, invoices, webhook configs, merchant chains, keys, idempotency replays and the clock offset', async () => {
    const file = freshFile();
    // A fixed public URL keeps checkoutUrl and bindUrl the same across the restart. (Reusing the
    // port instead races fetch's keep-alive pool, which may still hold a socket the stop closed.)
    const publicUrl = 'http://emulator.invalid:4747';
    const a = await start({ db: file, publicUrl });
    const keys = JSON.parse(JSON.stringify(a.keys));

    const merchantBody = { externalTenantId: 'tenant-42', email: 'shop@example.com', name: 'Shop 42' };
    const merchant = await call(a, 'POST', '/v1/partner/merchants', { key: keys.test.partnerKey, idempotencyKey: 'merchant-1', body: merchantBody });
    expect(merchant.status, merchant.text).toBe(201);
    const merchantId = merchant.body.merchantId as string;

    dataOf(await api(a).setMerchantChains({ params: { id: merchantId }, body: { networkIds: [84532, 103] } }));

    const partnerInvoiceBody = { merchantId, amount: '12.50', referenceId: 'order-1' };
    const partnerInvoice = await call(a, 'POST', '/v1/partner/invoices', { key: keys.test.partnerKey, idempotencyKey: 'pinv-1', body: partnerInvoiceBody });
    expect(partnerInvoice.status, partnerInvoice.text).toBe(201);
    expect(partnerInvoice.body.addresses).toHaveLength(2);

    const merchantInvoiceBody = { amount: '99.000001', networkId: 1, token: 'USDT' };
    const merchantInvoice = await call(a, 'POST', '/v1/invoices', { key: keys.live.merchantKey, idempotencyKey: 'minv-1', body: merchantInvoiceBody });
    expect(merchantInvoice.status, merchantInvoice.text).toBe(201);

    const hookTest = dataOf(
      await api(a).putWebhook({
        key: keys.test.partnerKey,
        body: { url: 'http://127.0.0.1:9/hooks', secret: 'test-secret-0123456789', customHeaders: { 'X-Tenant': 'abc' } },
      }),
    );
    dataOf(
      await api(a).putWebhook({ key: keys.live.partnerKey, body: { url: 'https://hooks.example.com/svc', secret: 'live-secret-0123456789', enabled: false } }),
    );

    const other = dataOf(await api(a).createPartner({ body: { name: 'Other' } }), 201);
    const newMerchantKey = dataOf(await api(a).createMerchantKey({ params: { id: merchantId } }), 201);

    // Less than the invoice lifetime, so that nothing falls due across the restart.
    await a.advanceClock(600);
    const offsetBefore = a.clock.offset();
    // An advance moves the clock by exactly what was asked, however long it takes (issue 23).
    expect(offsetBefore).toBe(600_000);

    const reads = async (emu: Emulator) => {
      const c = api(emu);
      return {
        merchant: dataOf(await c.getMerchant({ key: keys.test.partnerKey, params: { id: merchantId } })),
        merchants: dataOf(await c.listMerchants({ key: keys.test.partnerKey })),
        partnerInvoice: dataOf(await c.getPartnerInvoice({ key: keys.test.partnerKey, params: { id: partnerInvoice.body.id } })),
        merchantInvoice: dataOf(await c.getInvoice({ key: keys.live.merchantKey, params: { id: merchantInvoice.body.id } })),
        invoices: dataOf(await c.listPartnerInvoices({ key: keys.test.partnerKey })),
        hookTest: dataOf(await c.getWebhook({ key: keys.test.partnerKey })),
        hookLive: dataOf(await c.getWebhook({ key: keys.live.partnerKey })),
      };
    };
    const before = await reads(a);
    // (updatedAt moved when the chains were set.)
    expect({ ...before.merchant, updatedAt: null }).toEqual({ ...merchant.body, updatedAt: null });
    expect(before.hookTest).toEqual(hookTest);
    await a.stop();

    const b = await start({ db: file, publicUrl });
    expect(JSON.parse(JSON.stringify(b.keys))).toEqual(keys);
    expect(dataOf(await api(b).getDefaultKeys())).toEqual(keys);
    expect(await reads(b)).toEqual(before);
    expect(before.partnerInvoice).toEqual(partnerInvoice.body);

    // Clock: the offset was persisted; emulator time did not fall back to the wall clock.
    expect(b.clock.offset()).toBe(offsetBefore);
    const wallBefore = Date.now();
    const clock = dataOf(await api(b).getClock());
    expect(clock.offsetSeconds).toBe(Math.round(offsetBefore / 1000));
    // Bounded by wall time read before the request, not after it: no allowance a slow machine exceeds.
    expect(Date.parse(clock.now) - wallBefore).toBeGreaterThanOrEqual(600_000);

    // Idempotent replays replay, byte for byte, with the header.
    const replays: [string, string, string, string, unknown, ApiResponse][] = [
      ['POST', '/v1/partner/merchants', keys.test.partnerKey, 'merchant-1', merchantBody, merchant],
      ['POST', '/v1/partner/invoices', keys.test.partnerKey, 'pinv-1', partnerInvoiceBody, partnerInvoice],
      ['POST', '/v1/invoices', keys.live.merchantKey, 'minv-1', merchantInvoiceBody, merchantInvoice],
    ];
    for (const [method, p, key, idem, body, first] of replays) {
      const replay = await call(b, method, p, { key, idempotencyKey: idem, body });
      expect(replay.status, `${p}: ${replay.text}`).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(first.text);
      // A different body under the same key is still refused.
      expectError(
        await call(b, method, p, { key, idempotencyKey: idem, body: { ...(body as object), referenceId: 'changed' } }),
        422,
        'idempotency_key_reused',
      );
    }
    // Nothing was created by the replays.
    const typed = api(b);
    expect(dataOf(await typed.listMerchants({ key: keys.test.partnerKey }))).toEqual(before.merchants);
    expect(dataOf(await typed.listPartnerInvoices({ key: keys.test.partnerKey }))).toEqual(before.invoices);

    // The tenant is still taken; the merchant's chains still apply; keys issued later still work.
    expectRefused(await typed.createMerchant({ key: keys.test.partnerKey, idempotencyKey: ikey(), body: merchantBody }), 409, 'external_tenant_id_taken');
    const narrowed = dataOf(await typed.createPartnerInvoice({ key: keys.test.partnerKey, idempotencyKey: ikey(), body: { merchantId, amount: '1' } }), 201);
    expect(narrowed.addresses.map((x) => x.networkId).sort((x, y) => x - y)).toEqual([103, 84532]);
    expect((await typed.listMerchants({ key: other.test.partnerKey })).status).toBe(200);
    expect((await typed.listMerchants({ key: other.live.partnerKey })).status).toBe(200);
    dataOf(await typed.getInvoice({ key: newMerchantKey.merchantKey, params: { id: partnerInvoice.body.id } }));
  });

  it('persists a clock advanced through the control plane, and a second restart keeps everything again', async () => {
    const file = freshFile();
    const a = await start({ db: file });
    dataOf(await api(a).advanceClock({ body: { seconds: 7200 } }));
    await a.stop();
    const b = await start({ db: file });
    expect(b.clock.offset()).toBe(a.clock.offset());
    await b.advanceClock(60);
    await b.stop();
    const c = await start({ db: file });
    expect(c.clock.offset()).toBe(b.clock.offset());
    expect(c.clock.offset()).toBe(7_260_000);
    expect(c.keys).toEqual(a.keys);
  });

  it('does not persist the offset of a custom clock', async () => {
    const file = freshFile();
    const a = await start({ db: file, clock: manualClock() });
    await a.advanceClock(86_400);
    await a.stop();
    const b = await start({ db: file });
    expect(b.clock.offset()).toBe(0);
    expect(dataOf(await api(b).getClock()).offsetSeconds).toBe(0);
  });
});

describe('pinned keys', () => {
  const pinned = () => ({
    test: { partnerKey: generateKey('partner', 'test'), merchantKey: generateKey('merchant', 'test') },
    live: { partnerKey: generateKey('partner', 'live'), merchantKey: generateKey('merchant', 'live') },
  });

  it('are the default keys of a new database, and they authenticate', async () => {
    const keys = pinned();
    const emu = await start({ db: freshFile(), config: { keys } });
    for (const env of ['test', 'live'] as const) {
      expect(emu.keys[env].partnerKey).toBe(keys[env].partnerKey);
      expect(emu.keys[env].merchantKey).toBe(keys[env].merchantKey);
      const list = dataOf(await api(emu).listMerchants({ key: keys[env].partnerKey }));
      expect(list.data.map((m) => m.merchantId)).toEqual([emu.keys[env].merchantId]);
      const invoice = dataOf(await api(emu).createInvoice({ key: keys[env].merchantKey, idempotencyKey: ikey(), body: { amount: '1' } }), 201);
      expect(invoice.environment).toBe(env);
    }
    expect(dataOf(await api(emu).getDefaultKeys())).toEqual(JSON.parse(JSON.stringify(emu.keys)));
  });

  it('are applied to an existing database on restart, for the same default partner and merchants', async () => {
    const file = freshFile();
    const a = await start({ db: file });
    const original = JSON.parse(JSON.stringify(a.keys));
    const merchant = dataOf(
      await api(a).createMerchant({
        key: original.test.partnerKey,
        idempotencyKey: ikey(),
        body: { externalTenantId: 'kept', email: 'k@example.com', name: 'Kept' },
      }),
      201,
    );
    await a.stop();

    const keys = pinned();
    const b = await start({ db: file, config: { keys: { test: keys.test, live: { partnerKey: keys.live.partnerKey } } } });
    expect(b.keys.partnerId).toBe(original.partnerId);
    expect(b.keys.test).toEqual({ ...keys.test, merchantId: original.test.merchantId });
    // Only what is pinned changes.
    expect(b.keys.live).toEqual({ ...original.live, partnerKey: keys.live.partnerKey });
    const list = dataOf(await api(b).listMerchants({ key: keys.test.partnerKey }));
    expect(list.data.map((m) => m.merchantId)).toContain(merchant.merchantId);
    dataOf(await api(b).listInvoices({ key: keys.test.merchantKey }));
    expect((await api(b).listMerchants({ key: keys.live.partnerKey })).status).toBe(200);
    expect(dataOf(await api(b).getDefaultKeys())).toEqual(JSON.parse(JSON.stringify(b.keys)));
  });
});

/** Rows per table, except the emulator's own bookkeeping (identity, clock, migrations). */
function dataCounts(emu: Emulator): Record<string, number> {
  const db = internalsOf(emu).store!.sqlite;
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' AND name <> 'meta'")
    .all() as { name: string }[];
  return Object.fromEntries(tables.map(({ name }) => [name, (db.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number }).n]));
}

/** After a reset only the defaults are left: one partner, its two merchants and their four keys; every other table is empty. */
function expectOnlyDefaults(emu: Emulator): void {
  const counts = dataCounts(emu);
  expect(Object.keys(counts)).toEqual(expect.arrayContaining(['partners', 'merchants', 'api_keys', 'invoices', 'webhook_configs', 'idempotency_keys']));
  const defaults: Record<string, number> = { partners: 1, merchants: 2, api_keys: 4 };
  expect(counts).toEqual(Object.fromEntries(Object.keys(counts).map((t) => [t, defaults[t] ?? 0])));
}

describe('reset', () => {
  async function seed(emu: Emulator) {
    const keys = emu.keys;
    const c = api(emu);
    const merchant = dataOf(
      await c.createMerchant({
        key: keys.test.partnerKey,
        idempotencyKey: 'seed-merchant',
        body: { externalTenantId: 'seed', email: 's@example.com', name: 'Seed' },
      }),
      201,
    );
    const invoice = dataOf(await c.createInvoice({ key: keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
    dataOf(await c.putWebhook({ key: keys.test.partnerKey, body: { url: 'http://127.0.0.1:9/h', secret: 'z'.repeat(16) } }));
    await c.setMerchantChains({ params: { id: keys.test.merchantId }, body: { networkIds: [84532] } });
    const other = dataOf(await c.createPartner({ body: {} }), 201);
    return { merchant, invoice, otherKey: other.test.partnerKey };
  }

  async function expectEmpty(emu: Emulator, keys: Emulator['keys'], seeded: Awaited<ReturnType<typeof seed>>) {
    expect(JSON.parse(JSON.stringify(emu.keys))).toEqual(JSON.parse(JSON.stringify(keys)));
    const c = api(emu);
    for (const env of ['test', 'live'] as const) {
      const list = dataOf(await c.listMerchants({ key: keys[env].partnerKey }));
      expect(list.data.map((m) => m.merchantId)).toEqual([keys[env].merchantId]);
      expect(dataOf(await c.listPartnerInvoices({ key: keys[env].partnerKey }))).toEqual({ data: [], hasMore: false });
      expectRefused(await c.getWebhook({ key: keys[env].partnerKey }), 404, 'webhook_not_configured');
    }
    expectRefused(await c.getInvoice({ key: keys.test.merchantKey, params: { id: seeded.invoice.id } }), 404, 'invoice_not_found');
    expectRefused(await c.listMerchants({ key: seeded.otherKey }), 401, 'unauthorized');
    // The default merchant's chain settings were data too.
    const invoice = dataOf(await c.createInvoice({ key: keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
    expect(invoice.addresses.length).toBeGreaterThan(1);
    // Idempotency memory is gone: the same key and body create a new merchant.
    const again = await c.createMerchant({
      key: keys.test.partnerKey,
      idempotencyKey: 'seed-merchant',
      body: { externalTenantId: 'seed', email: 's@example.com', name: 'Seed' },
    });
    expect(dataOf(again, 201).merchantId).not.toBe(seeded.merchant.merchantId);
  }

  it('emulator.reset() empties the data, keeps the default keys, and that survives a restart', async () => {
    const file = freshFile();
    const a = await start({ db: file });
    const keys = JSON.parse(JSON.stringify(a.keys));
    const seeded = await seed(a);
    await a.reset();
    expectOnlyDefaults(a);
    await a.stop();
    const b = await start({ db: file });
    expectOnlyDefaults(b);
    await expectEmpty(b, keys, seeded);
  });

  it('the reset: true start option empties the data and keeps the default keys', async () => {
    const file = freshFile();
    const a = await start({ db: file });
    const keys = JSON.parse(JSON.stringify(a.keys));
    const seeded = await seed(a);
    await a.stop();

    const b = await start({ db: file, reset: true });
    expectOnlyDefaults(b);
    await expectEmpty(b, keys, seeded);
    await b.stop();

    // Without reset, the data written after the reset start is kept as usual.
    const c = await start({ db: file });
    const list = dataOf(await api(c).listMerchants({ key: keys.test.partnerKey }));
    expect(list.data).toHaveLength(2);
  });

  it('reset: true keeps the pinned keys of the config', async () => {
    const file = freshFile();
    const pinnedKey = generateKey('partner', 'test');
    const a = await start({ db: file, config: { keys: { test: { partnerKey: pinnedKey }, live: {} } } });
    await seed(a);
    await a.stop();
    const b = await start({ db: file, reset: true, config: { keys: { test: { partnerKey: pinnedKey }, live: {} } } });
    expect(b.keys.test.partnerKey).toBe(pinnedKey);
    const list = dataOf(await api(b).listMerchants({ key: pinnedKey }));
    expect(list.data).toHaveLength(1);
  });
});
