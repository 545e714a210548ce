/**
 * Recordings become fixtures (CONTRACT §13): traffic recorded through `svc proxy --record` against
 * one emulator, turned into a fixtures file by `svc fixtures from-recording`, applied by `svc fixtures
 * apply` to a fresh emulator, recreates the merchants, invoices and webhook configuration, in order.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ContractProxy } from '../../src/fidelity/proxy/server.js';
import { runInProcess } from '../helpers/cli.js';
import { ikey, request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

let recorded: TestEmulator;
let fresh: TestEmulator;
let proxy: ContractProxy;
let dir: string;

beforeAll(async () => {
  recorded = await startTestEmulator();
  fresh = await startTestEmulator();
  dir = tempDir('svc-recording-');
  proxy = await startProxy({ upstream: recorded.url, record: path.join(dir, 'traffic.ndjson') });
});
afterAll(async () => {
  await proxy.stop();
  await recorded.stop();
  await fresh.stop();
});

describe('svc fixtures from-recording', () => {
  it('recreates the recorded merchants, invoices and webhook configuration on a fresh emulator', async () => {
    const pk = recorded.keys.test.partnerKey;
    const call = (method: string, p: string, options: Parameters<typeof request>[3] = {}) => request(proxy.url, method, p, options);
    // The session: a merchant and its invoices, an invoice of a merchant made before the recording,
    // a merchant-key invoice, a replay and a refused create (neither recreated), the webhook twice.
    const shop = await call('POST', '/v1/partner/merchants', {
      key: pk,
      idempotencyKey: ikey(),
      body: { externalTenantId: 'shop-1', name: 'Shop One', email: 'one@shop.example' },
    });
    expect(shop.status).toBe(201);
    const first = { merchantId: shop.body.merchantId, amount: '12.50', referenceId: 'order-${1}', networkId: 84532, token: 'USDC' };
    const key = ikey();
    expect((await call('POST', '/v1/partner/invoices', { key: pk, idempotencyKey: key, body: first })).status).toBe(201);
    expect((await call('POST', '/v1/partner/invoices', { key: pk, idempotencyKey: key, body: first })).status).toBe(200);
    expect(
      (await call('POST', '/v1/partner/invoices', { key: pk, idempotencyKey: ikey(), body: { merchantId: shop.body.merchantId, amount: 'x' } })).status,
    ).toBe(400);
    const older = recorded.keys.test.merchantId;
    expect((await call('GET', `/v1/partner/merchants/${older}`, { key: pk })).status).toBe(200);
    expect((await call('POST', '/v1/partner/invoices', { key: pk, idempotencyKey: ikey(), body: { merchantId: older, amount: '3.00' } })).status).toBe(201);
    expect(
      (await call('POST', '/v1/invoices', { key: recorded.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '7.00', referenceId: 'own' } }))
        .status,
    ).toBe(201);
    const hook = { url: 'https://example.com/hooks', secret: 'whsec_recorded_0123456789', enabled: true, customHeaders: { 'X-Env': 'staging' } };
    expect((await call('PUT', '/v1/partner/webhook', { key: pk, body: hook })).status).toBe(200);
    expect((await call('PUT', '/v1/partner/webhook', { key: pk, body: { url: 'https://example.com/hooks-2', enabled: false } })).status).toBe(200);

    const printed = await runInProcess(['fixtures', 'from-recording', 'traffic.ndjson'], { cwd: dir });
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^# Made by svc fixtures from-recording traffic\.ndjson: 2 merchant\(s\), 3 invoice\(s\), 2 webhook configuration\(s\)/);
    fs.writeFileSync(path.join(dir, 'fixtures.yaml'), printed.stdout);
    const asJson = JSON.parse((await runInProcess(['fixtures', 'from-recording', 'traffic.ndjson', '--json'], { cwd: dir })).stdout);
    expect(asJson.steps.map((s: { name: string }) => s.name)).toEqual([
      'merchant-1',
      'invoice-1',
      'merchant-2',
      'invoice-2',
      'invoice-3',
      'webhook-1',
      'webhook-2',
    ]);

    const env = {
      SVC_BASE_URL: fresh.url,
      SVC_PARTNER_KEY: fresh.keys.test.partnerKey,
      SVC_MERCHANT_KEY: fresh.keys.test.merchantKey,
      SVC_WEBHOOK_HEADER_X_ENV: 'staging',
    };
    const applied = await runInProcess(['fixtures', 'apply', 'fixtures.yaml', '--json'], { cwd: dir, env });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const out = JSON.parse(applied.stdout);
    expect(out['merchant-1']).toMatchObject({ externalTenantId: 'shop-1', name: 'Shop One', email: 'one@shop.example' });
    // The merchant used but not created in the recording: a stand-in with what the recording showed of
    // it, under a tenant id of its own (the fresh emulator has a default merchant with the original).
    const olderSeen = (await recorded.call('GET', `/v1/partner/merchants/${older}`, { key: pk })).body;
    expect(out['merchant-2']).toMatchObject({ externalTenantId: `svc-recorded-${older.slice(0, 8)}`, name: olderSeen.name, email: olderSeen.email });
    expect(out['invoice-1']).toMatchObject({ merchantId: out['merchant-1'].merchantId, amount: '12.50', referenceId: 'order-${1}', status: 'CREATED' });
    expect(out['invoice-1'].addresses.map((a: { networkId: number }) => a.networkId)).toEqual([84532]);
    expect(out['invoice-2']).toMatchObject({ merchantId: out['merchant-2'].merchantId, amount: '3.00' });
    expect(out['invoice-3']).toMatchObject({ amount: '7.00', referenceId: 'own' });
    const webhook = (await fresh.call('GET', '/v1/partner/webhook', { key: fresh.keys.test.partnerKey })).body;
    expect(webhook).toMatchObject({ url: 'https://example.com/hooks-2', enabled: false, secretConfigured: true, customHeaders: { 'X-Env': 'staging' } });
    const invoices = (await fresh.call('GET', '/v1/partner/invoices?limit=100', { key: fresh.keys.test.partnerKey })).body.data;
    expect(invoices).toHaveLength(3);
  });

  it('a line that is not a recorded exchange, or a recording that created nothing, is an error naming the file', async () => {
    fs.writeFileSync(path.join(dir, 'bad.ndjson'), '{"at":"x"}\n');
    const bad = await runInProcess(['fixtures', 'from-recording', 'bad.ndjson'], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('bad.ndjson:1: not a recorded exchange');
    fs.writeFileSync(path.join(dir, 'empty.ndjson'), '');
    const empty = await runInProcess(['fixtures', 'from-recording', 'empty.ndjson'], { cwd: dir });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('the recording created no merchant, invoice or webhook configuration');
    const missing = await runInProcess(['fixtures', 'from-recording', 'nope.ndjson'], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nope.ndjson: no such file');
  });
});
