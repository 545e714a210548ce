/**
 * CONTRACT §13's `verify()` against svc itself, in-process: every check passes and none is skipped
 * (svc has everything the suite may ask for: test helpers, a reachable receiver, the control plane).
 * This is how the checks are used in our own suite, so a check and svc cannot drift apart; the drift
 * cases (verify-drift.test.ts) show each check can fail.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceUnreachableError } from '../../src/client/errors.js';
import { UsageError } from '../../src/errors.js';
import { verify } from '../../src/index.js';
import { CHECKS, GROUPS } from '../../src/fidelity/verify/checks/index.js';
import { selectChecks } from '../../src/fidelity/verify/run.js';
import { ROOT } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.stop());

const keys = () => ({ baseUrl: emu.url, partnerKey: emu.keys.test.partnerKey, merchantKey: emu.keys.test.merchantKey });

describe('verify() against svc', () => {
  it('passes every check, skips none, and reports each once, in the suite’s order', async () => {
    const seen: string[] = [];
    const report = await verify({ ...keys(), onResult: (r) => seen.push(r.id) });
    const notPassed = report.checks.filter((c) => c.outcome !== 'passed');
    expect(notPassed).toEqual([]);
    expect(report).toMatchObject({ passed: CHECKS.length, failed: 0, skipped: 0 });
    expect(seen).toEqual(CHECKS.map((c) => c.id));
    // What verify created is marked: every merchant it made has an svc-verify- tenant id.
    const merchants = await emu.call('GET', '/v1/partner/merchants?limit=100', { key: emu.keys.test.partnerKey });
    const made = merchants.body.data.filter((m: { merchantId: string }) => m.merchantId !== emu.keys.test.merchantId);
    expect(made.length).toBeGreaterThan(0);
    for (const m of made) expect(m.externalTenantId).toMatch(/^svc-verify-/);
    // It made the test webhook, and left it disabled (there was none).
    expect(report.notes).toEqual(['the test webhook did not exist before; svc verify left the one it made disabled']);
    const webhook = await emu.call('GET', '/v1/partner/webhook', { key: emu.keys.test.partnerKey });
    expect(webhook.body.enabled).toBe(false);
  }, 120_000);

  it('a second run on the same emulator passes every check too (the first-PUT rule asks a fresh partner)', async () => {
    const report = await verify({ ...keys(), only: ['webhook'] });
    expect(report.checks.filter((c) => c.outcome !== 'passed')).toEqual([]);
  }, 60_000);

  it('puts back a webhook that was configured: its URL, enabled flag and headers', async () => {
    const key = emu.keys.test.partnerKey;
    const put = await emu.call('PUT', '/v1/partner/webhook', {
      key,
      body: { url: 'https://example.com/mine', secret: 'whsec_mine_0123456789', enabled: true, customHeaders: { 'X-Mine': '1' } },
    });
    expect(put.status).toBe(200);
    const report = await verify({ ...keys(), only: ['deliveries.invoice-created'] });
    expect(report.failed).toBe(0);
    expect(report.notes[0]).toMatch(/secret is now the one svc verify set/);
    const after = await emu.call('GET', '/v1/partner/webhook', { key });
    expect(after.body).toMatchObject({ url: 'https://example.com/mine', enabled: true, customHeaders: { 'X-Mine': '1' } });
  }, 60_000);

  it('without a merchant key, the merchant-side checks are skipped saying why, and the rest pass', async () => {
    const report = await verify({ baseUrl: emu.url, partnerKey: emu.keys.test.partnerKey, only: ['auth', 'invoices'] });
    const skipped = report.checks.filter((c) => c.outcome === 'skipped');
    expect(skipped.map((c) => c.id)).toEqual([
      'auth.merchant-key-on-partner-endpoint',
      'invoices.create-merchant',
      'invoices.get-merchant',
      'invoices.list-merchant',
      'invoices.other-merchant',
    ]);
    for (const c of skipped) expect(c.detail).toMatch(/no merchant key/);
    expect(report.failed).toBe(0);
  }, 60_000);

  it('reaches its receiver through a tunnel with tunnel: true (cloudflared faked, handing back the local URL)', async () => {
    const env = { ...process.env, CLOUDFLARED_BIN: path.join(ROOT, 'test/fixtures/fake-cloudflared.mjs'), FAKE_CLOUDFLARED_URL: 'echo' };
    const report = await verify({ ...keys(), tunnel: true, env, only: ['deliveries.invoice-created', 'signatures'] });
    expect(report.checks.map((c) => [c.id, c.outcome])).toEqual([
      ['deliveries.invoice-created', 'passed'],
      ['signatures.hmac', 'passed'],
      ['signatures.timestamp', 'passed'],
    ]);
  }, 60_000);

  it('refuses live keys and malformed ones before anything is sent (usage errors naming the flag)', async () => {
    const live = verify({ baseUrl: emu.url, partnerKey: emu.keys.live.partnerKey });
    await expect(live).rejects.toBeInstanceOf(UsageError);
    await expect(live).rejects.toMatchObject({ flag: '--partner-key', message: expect.stringMatching(/test keys only/) });
    await expect(verify({ ...keys(), merchantKey: emu.keys.live.merchantKey })).rejects.toMatchObject({ flag: '--merchant-key' });
    await expect(verify({ ...keys(), partnerKey: emu.keys.test.merchantKey })).rejects.toMatchObject({ flag: '--partner-key' });
    await expect(verify({ ...keys(), baseUrl: 'ftp://example.com' })).rejects.toMatchObject({ flag: '--base-url' });
  });

  it('an unreachable deployment is ServiceUnreachableError, not a list of failures', async () => {
    const unreachable = verify({ ...keys(), baseUrl: 'http://127.0.0.1:1' });
    await expect(unreachable).rejects.toBeInstanceOf(ServiceUnreachableError);
    await expect(unreachable).rejects.toMatchObject({ baseUrl: 'http://127.0.0.1:1' });
  });
});

describe('the check list', () => {
  it('has stable, unique ids of the form group.name, each with a CONTRACT section and a title', () => {
    const ids = CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of CHECKS) {
      expect(c.id).toMatch(/^[a-z]+\.[a-z0-9-]+$/);
      expect(c.section).toMatch(/^§(1|2|3|4|5|6)$/);
      expect(c.title.length).toBeGreaterThan(10);
    }
  });

  it('--only takes groups and check ids, in the suite’s order; an unknown one is a usage error listing the groups', () => {
    expect(selectChecks(['signatures.hmac', 'auth']).map((c) => c.id)).toEqual([
      ...CHECKS.filter((c) => c.id.startsWith('auth.')).map((c) => c.id),
      'signatures.hmac',
    ]);
    expect(() => selectChecks(['nope'])).toThrow(UsageError);
    expect(() => selectChecks(['nope'])).toThrow(GROUPS.join(', '));
  });
});
