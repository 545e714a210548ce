/**
 * The fidelity commands of CONTRACT §13 as users run them (bin/svc.js spawned): `svc verify` against
 * `svc dev` passes every check; a live key is a usage error; `svc proxy` forwards, reports violations
 * and records; `svc fixtures from-recording` turns the recording into fixtures that `svc fixtures
 * apply` runs on a fresh emulator; an unreachable upstream is 502; `svc webhook listen` against a
 * remote deployment prints a violation for each delivery that departs from the contract.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/fidelity/verify/checks/index.js';
import { runCli, spawnCli, type LiveCli } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

const each = perTest();
const running: LiveCli[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});

const FAKE = fileURLToPath(new URL('../fixtures/fake-cloudflared.mjs', import.meta.url));
beforeAll(() => fs.chmodSync(FAKE, 0o755));

function live(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const p = spawnCli(args, { cwd, env });
  running.push(p);
  return p;
}

/** A project folder with `svc dev` running in it; its ready event. */
async function dev() {
  const cwd = tempDir();
  fs.writeFileSync(path.join(cwd, 'package.json'), '{"name":"app","private":true}');
  const p = live(['dev', '--memory', '--port', '0', '--json'], cwd);
  const ready = JSON.parse(await p.waitForLine(() => true));
  return { cwd, ready };
}

describe('svc verify', () => {
  it('against svc dev: one line per check, every one passed, then the counts; --json the report document; exit 0', async () => {
    const { cwd } = await dev();
    const human = await runCli(['verify'], { cwd, timeoutMs: 180_000 });
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe(`${CHECKS.length} passed, 0 failed, 0 skipped`);
    expect(lines.slice(0, -1).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(CHECKS.map((c) => `passed ${c.id}`));
    expect(human.stderr).toContain('the test webhook did not exist before');

    const json = await runCli(['verify', '--only', 'auth,amounts', '--json'], { cwd, timeoutMs: 60_000 });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(Object.keys(report)).toEqual(['checks', 'passed', 'failed', 'skipped']);
    expect(report.checks.length).toBe(report.passed);
    for (const check of report.checks) {
      expect(Object.keys(check)).toEqual(['id', 'title', 'section', 'outcome', 'detail']);
      expect(check.id).toMatch(/^(auth|amounts)\./);
    }
  }, 240_000);

  it('a live key is a usage error naming the flag (exit 2); an unknown group too; nothing is created', async () => {
    const { cwd, ready } = await dev();
    const refused = await runCli(['verify', '--partner-key', ready.live.partnerKey], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('test keys only');
    const unknown = await runCli(['verify', '--only', 'nope'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('groups: auth, http,');
    const merchants = await request(ready.baseUrl, 'GET', '/v1/partner/merchants', { key: ready.test.partnerKey });
    expect(merchants.body.data).toHaveLength(1);
  }, 60_000);

  it('against a deployment that fails a check: the failure says expected and got, exit 1', async () => {
    // svc proxy in front of nothing answers 502 to every API request: every check that asks fails.
    const cwd = tempDir();
    const proxy = live(['proxy', '--upstream', 'http://127.0.0.1:1', '--port', '0', '--json'], cwd);
    const { baseUrl } = JSON.parse(await proxy.waitForLine(() => true));
    const run = await runCli(['verify', '--base-url', baseUrl, '--partner-key', `pt_test_${'a'.repeat(32)}`, '--only', 'auth.missing-key'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('failed  auth.missing-key');
    expect(run.stdout).toContain('expected 401 unauthorized from GET /v1/partner/webhook; got 502 upstream_unavailable');
    expect(run.stdout.trim().split('\n').at(-1)).toBe('0 passed, 1 failed, 0 skipped');
  }, 60_000);
});

describe('svc proxy', () => {
  it('forwards, reports violations on stderr and in Svc-Contract-Violations, records; from-recording and apply recreate on a fresh emulator', async () => {
    const { cwd, ready } = await dev();
    const proxy = live(['proxy', '--upstream', ready.baseUrl, '--port', '0', '--json', '--record', 'traffic.ndjson'], cwd);
    const first = JSON.parse(await proxy.waitForLine(() => true));
    expect(first).toEqual({ type: 'ready', baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), upstream: ready.baseUrl });
    const pk = ready.test.partnerKey;
    const merchant = await request(first.baseUrl, 'POST', '/v1/partner/merchants', {
      key: pk,
      idempotencyKey: ikey(),
      body: { externalTenantId: 'e2e-shop', name: 'E2E Shop', email: 'e2e@shop.example' },
    });
    expect(merchant.status).toBe(201);
    expect(merchant.headers.get('svc-contract-violations')).toBe('0');
    const invoice = await request(first.baseUrl, 'POST', '/v1/partner/invoices', {
      key: pk,
      idempotencyKey: ikey(),
      body: { merchantId: merchant.body.merchantId, amount: '4.20' },
    });
    expect(invoice.status).toBe(201);
    const bad = await request(first.baseUrl, 'POST', '/v1/invoices', { key: ready.test.merchantKey, idempotencyKey: ikey(), body: { amount: 4.2 } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('svc-contract-violations')).toBe('1');
    await proxy.waitForLine((l) => JSON.parse(l).type === 'exchange' && JSON.parse(l).status === 400);
    expect(proxy.stderr()).toContain('violation POST /v1/invoices → 400: request /body/amount must be string');
    expect(await proxy.stop('SIGINT')).toBe(0);
    expect(fs.statSync(path.join(cwd, 'traffic.ndjson')).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(path.join(cwd, 'traffic.ndjson'), 'utf8')).not.toContain(pk);

    const printed = await runCli(['fixtures', 'from-recording', 'traffic.ndjson'], { cwd });
    expect(printed.code, printed.stderr).toBe(0);
    fs.writeFileSync(path.join(cwd, 'recorded.yaml'), printed.stdout);
    const target = await each.emulator();
    const env = { SVC_BASE_URL: target.url, SVC_PARTNER_KEY: target.keys.test.partnerKey, SVC_MERCHANT_KEY: target.keys.test.merchantKey };
    const applied = await runCli(['fixtures', 'apply', 'recorded.yaml', '--json'], { cwd, env });
    expect(applied.code, applied.stderr).toBe(0);
    const out = JSON.parse(applied.stdout);
    expect(Object.keys(out)).toEqual(['merchant-1', 'invoice-1']);
    expect(out['merchant-1']).toMatchObject({ externalTenantId: 'e2e-shop', name: 'E2E Shop' });
    expect(out['invoice-1']).toMatchObject({ merchantId: out['merchant-1'].merchantId, amount: '4.20' });
  }, 120_000);

  it('an unreachable upstream is 502 upstream_unavailable in the contract’s error shape; no --upstream is a usage error', async () => {
    const cwd = tempDir();
    const proxy = live(['proxy', '--upstream', 'http://127.0.0.1:1', '--port', '0', '--json'], cwd);
    const { baseUrl } = JSON.parse(await proxy.waitForLine(() => true));
    const res = await request(baseUrl, 'GET', '/v1/partner/webhook', { key: `pt_test_${'a'.repeat(32)}` });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('upstream_unavailable');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    const missing = await runCli(['proxy'], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--upstream');
  }, 60_000);
});

describe('svc webhook listen against a remote deployment', () => {
  it('prints a violation for a delivery whose signature is wrong, and forwards it all the same', async () => {
    const remote = await each.emulator();
    const app = await each.receiver({ status: 200 });
    const cwd = tempDir();
    fs.mkdirSync(path.join(cwd, '.svc'));
    const env = { SVC_BASE_URL: remote.url, SVC_PARTNER_KEY: remote.keys.test.partnerKey, CLOUDFLARED_BIN: FAKE, FAKE_CLOUDFLARED_URL: 'echo' };
    const listen = live(['webhook', 'listen', '--tunnel', 'cloudflared', '--json', '--forward-to', app.url], cwd, env);
    // No webhook was configured: listen makes one with a secret of its own, so it checks the HMAC too.
    const ready = JSON.parse(await listen.waitForLine((l) => JSON.parse(l).type === 'ready'));
    expect(ready.secretSource).toBe('generated');
    const clean = await remote.call('POST', '/v1/invoices', { key: remote.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '1.00' } });
    await listen.waitForLine((l) => JSON.parse(l).type === 'forwarded' && JSON.parse(l).eventId === `${clean.body.id}-1`);
    expect(listen.lines.map((l) => JSON.parse(l)).filter((e) => e.type === 'violation')).toEqual([]);

    remote.webhookChaos.set({ badSignature: 1, seed: 1 });
    const tampered = await remote.call('POST', '/v1/invoices', { key: remote.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '2.00' } });
    const violation = JSON.parse(await listen.waitForLine((l) => JSON.parse(l).type === 'violation'));
    expect(violation).toMatchObject({ type: 'violation', eventType: 'invoice.created', eventId: `${tampered.body.id}-1` });
    expect(violation.message).toContain('v1 is not the HMAC-SHA256');
    await listen.waitForLine((l) => JSON.parse(l).type === 'forwarded' && JSON.parse(l).eventId === `${tampered.body.id}-1`);
    expect(await listen.stop('SIGINT')).toBe(0);
  }, 60_000);
});
