import fs from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { runCli, runInProcess, type RunResult } from '../helpers/cli.js';
import { ikey, request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Every command against a real emulator, in human and --json mode: stdout, stderr and exit code.
 * Most run in-process (fast); at least one per group runs the built bin/svc.js (the e2e project
 * builds dist/ first, test/helpers/build-once.ts). The target comes
 * from the environment (SVC_BASE_URL, SVC_PARTNER_KEY, SVC_MERCHANT_KEY) or flags; the folder is a
 * fresh temp dir, so no .svc/dev.json or config file of the repository interferes.
 * (`dev` is covered by dev.test.ts and cli-target.test.ts; `init`, `completion` and `fixtures` by
 * their own tests.)
 */
const dir = tempDir('svc-cli-');
const ANSI = /\u001b\[/;

type Env = Record<string, string>;
const targetEnv = (emu: TestEmulator, env: 'test' | 'live' = 'test'): Env => ({
  SVC_BASE_URL: emu.url,
  SVC_PARTNER_KEY: emu.keys[env].partnerKey,
  SVC_MERCHANT_KEY: emu.keys[env].merchantKey,
});
const NO_TARGET: Env = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };

/** In-process `svc …`; every result is checked for colour codes (not a TTY, so never any). */
async function svc(args: string[], env: Env, input?: string): Promise<RunResult> {
  const r = await runInProcess(args, { cwd: dir, env: { ...NO_TARGET, ...env }, ...(input !== undefined ? { input } : {}) });
  expect(r.stdout + r.stderr).not.toMatch(ANSI);
  return r;
}
async function spawned(args: string[], env: Env, input?: string): Promise<RunResult> {
  const r = await runCli(args, { cwd: dir, env: { ...NO_TARGET, ...env }, ...(input !== undefined ? { input } : {}) });
  expect(r.stdout + r.stderr).not.toMatch(ANSI);
  return r;
}
/** A success: exit 0, and with --json stdout is exactly one JSON document. */
function ok(r: RunResult): void {
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
}
function json<T = any>(r: RunResult, code = 0): T {
  expect(r.code, r.stderr).toBe(code);
  return JSON.parse(r.stdout) as T;
}
/** A failure with --json: stdout is exactly the contract's error document. */
function jsonError(r: RunResult, code: number): { code: string; message: string; param?: string } {
  const doc = json<{ error: { code: string; message: string; param?: string } }>(r, code);
  expect(Object.keys(doc)).toEqual(['error']);
  return doc.error;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let emu: TestEmulator;
let env: Env;
beforeAll(async () => {
  emu = await startTestEmulator();
  env = targetEnv(emu);
});
afterAll(() => emu?.stop());

describe('merchants', () => {
  let merchantId: string;

  it('create: human, then --json; missing values are a usage error naming the flag', async () => {
    const human = await svc(['merchants', 'create', '--external-tenant-id', 'acme', '--name', 'Acme Coffee', '--email', 'owner@acme.example'], env);
    ok(human);
    expect(human.stdout).toMatch(/^id\s+[0-9a-f-]{36}$/m);
    expect(human.stdout).toMatch(/^name\s+Acme Coffee$/m);

    const created = json(await svc(['merchants', 'create', '--external-tenant-id', 'beans', '--name', 'Beans', '--email', 'b@beans.example', '--json'], env));
    expect(created).toMatchObject({ externalTenantId: 'beans', name: 'Beans', integrationStatus: expect.any(String) });
    merchantId = created.merchantId;

    const missing = await svc(['merchants', 'create', '--name', 'X'], env);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('missing required option --external-tenant-id');
    expect(jsonError(await svc(['merchants', 'create', '--name', 'X', '--json'], env), 2)).toMatchObject({
      code: 'usage_error',
      param: '--external-tenant-id',
    });
  });

  it('get: human and --json; an unknown id is exit 1 with the service error', async () => {
    const human = await svc(['merchants', 'get', merchantId], env);
    ok(human);
    expect(human.stdout).toContain(`bind url  ${emu.url}/bind/${merchantId}`);
    expect(json(await svc(['merchants', 'get', merchantId, '--json'], env)).merchantId).toBe(merchantId);

    const missing = await svc(['merchants', 'get', '00000000-0000-4000-8000-000000000000'], env);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^error 404 merchant_not_found: /);
  });

  it('get, spawned: 404 is exit 1 and one {"error":…} document', async () => {
    const r = await spawned(['merchants', 'get', '00000000-0000-4000-8000-000000000000', '--json'], env);
    expect(jsonError(r, 1)).toMatchObject({ code: 'merchant_not_found' });
  });

  it('list: a table, the API list with --json, and paging', async () => {
    const human = await svc(['merchants', 'list'], env);
    ok(human);
    expect(human.stdout.split('\n')[0]).toMatch(/^id\s+name\s+tenant\s+status\s+email$/);
    expect(human.stdout).toContain('Beans');
    const list = json(await svc(['merchants', 'list', '--json'], env));
    expect(list.hasMore).toBe(false);
    expect(list.data.map((m: { name: string }) => m.name)).toEqual(['Beans', 'Acme Coffee', 'Default test merchant']);
    const page = await svc(['merchants', 'list', '--limit', '1'], env);
    expect(page.stdout).toContain(`more: --starting-after ${merchantId}`);
    const next = json(await svc(['merchants', 'list', '--limit', '1', '--starting-after', merchantId, '--json'], env));
    expect(next.data[0].name).toBe('Acme Coffee');
  });

  it('keys: a new key shown once (with a note on stderr), usable at once', async () => {
    const human = await svc(['merchants', 'keys', merchantId], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^key\s+test_[0-9A-Za-z]{32}$/m);
    expect(human.stderr).toContain('shown only now');
    const issued = json(await svc(['merchants', 'keys', merchantId, '--json'], env));
    expect(issued).toEqual({ merchantId, environment: 'test', merchantKey: expect.stringMatching(/^test_[0-9A-Za-z]{32}$/) });
    const list = json(await svc(['invoices', 'list', '--api-key', issued.merchantKey, '--json'], env));
    expect(list).toEqual({ data: [], hasMore: false });
  });
});

describe('invoices', () => {
  let invoiceId: string;

  it('create: merchant variant by default, partner variant with --merchant', async () => {
    const human = await svc(['invoices', 'create', '--amount', '25.00', '--reference-id', 'order-1'], env);
    ok(human);
    expect(human.stdout).toMatch(/^status\s+CREATED$/m);
    expect(human.stdout).toMatch(/^network\s+tokens\s+deposit address$/m);
    const inv = json(await svc(['invoices', 'create', '--amount', '10.00', '--json'], env));
    expect(inv).toMatchObject({ status: 'CREATED', amount: '10.00', amountReceived: '0.00' });
    expect(inv).not.toHaveProperty('merchantId');
    invoiceId = inv.id;
    const partner = json(
      await svc(['invoices', 'create', '--merchant', emu.keys.test.merchantId, '--amount', '3', '--network-id', '84532', '--token', 'USDC', '--json'], env),
    );
    expect(partner).toMatchObject({ merchantId: emu.keys.test.merchantId, addresses: [expect.objectContaining({ networkId: 84532 })] });
  });

  it('get and list, human and --json', async () => {
    const human = await svc(['invoices', 'get', invoiceId], env);
    ok(human);
    expect(human.stdout).toContain(`checkout     ${emu.url}/checkout/${invoiceId}`);
    expect(json(await svc(['invoices', 'get', invoiceId, '--json'], env)).id).toBe(invoiceId);
    const table = await svc(['invoices', 'list'], env);
    ok(table);
    expect(table.stdout).toContain(invoiceId);
    const list = json(await svc(['invoices', 'list', '--status', 'CREATED', '--json'], env));
    expect(list.data.length).toBe(3);
    expect(json(await svc(['invoices', 'list', '--status', 'PAID', '--json'], env))).toEqual({ data: [], hasMore: false });
  });

  it('pay --unconfirmed, then confirm: CONFIRMING, then PARTIALLY_PAID', async () => {
    const paid = json(await svc(['invoices', 'pay', invoiceId, '--amount', '4.00', '--unconfirmed', '--json'], env));
    expect(paid.payment).toMatchObject({ amount: '4.00', confirmed: false, token: 'USDC', networkId: 11155111 });
    expect(paid.invoice.status).toBe('CONFIRMING');
    const human = await svc(['invoices', 'confirm', invoiceId, paid.payment.id], env);
    ok(human);
    expect(human.stdout).toMatch(/^amount\s+4\.00 USDC$/m);
    expect(human.stdout).toMatch(/^network\s+Ethereum Sepolia \(11155111\)$/m);
    expect(human.stdout).toMatch(/^status\s+PARTIALLY_PAID$/m);
    const again = await svc(['invoices', 'confirm', invoiceId, paid.payment.id, '--json'], env);
    expect(jsonError(again, 1).code).toBe('payment_already_confirmed');
  });

  it('pay (spawned): the rest, confirmed; a bad --amount is a usage error', async () => {
    const r = await spawned(['invoices', 'pay', invoiceId, '--tx-hash', '0xfeed', '--json'], env);
    const paid = json(r);
    expect(r.stderr).toBe('');
    expect(paid.payment).toMatchObject({ amount: '6.00', confirmed: true, txHash: '0xfeed' });
    expect(paid.invoice).toMatchObject({ status: 'PAID', amountReceived: '10.00' });
    const bad = await svc(['invoices', 'pay', invoiceId, '--amount', '1,5'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--amount must be a positive decimal');
  });

  it('get shows its payments (with the ids confirm takes) and its events in order; --json under _emulator (issue 24, spawned)', async () => {
    const r = await spawned(['invoices', 'get', invoiceId], env);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    const payments = json(await spawned(['invoices', 'get', invoiceId, '--json'], env));
    // The top level is the API's answer, unchanged; what only the emulator knows is under _emulator.
    // (the CLI reads with the partner key when it has one, as here)
    const api = await request(emu.url, 'GET', `/v1/partner/invoices/${invoiceId}`, { key: emu.keys.test.partnerKey });
    const { _emulator: extra, ...top } = payments;
    expect(top).toEqual(api.body);
    expect(extra.payments.map((p: { amount: string; confirmed: boolean }) => `${p.amount} ${p.confirmed}`)).toEqual(['4.00 true', '6.00 true']);
    expect(extra.events.map((e: { type: string; data: { sequence: number } }) => `${e.data.sequence} ${e.type}`)).toEqual([
      '1 invoice.created',
      '2 invoice.payment_detected',
      '3 invoice.partially_paid',
      '4 invoice.paid',
    ]);
    for (const p of extra.payments) expect(out).toContain(p.id);
    expect(out).toMatch(/^Payments$/m);
    expect(out).toMatch(/^Events$/m);
    const order = ['invoice.created', 'invoice.payment_detected', 'invoice.partially_paid', 'invoice.paid'].map((t) =>
      out.search(new RegExp(`^\\d+\\s+${t.replace('.', '\\.')}\\s`, 'm')),
    );
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('pay with a live key: 403 test_mode_only, exit 1', async () => {
    const inv = json(await svc(['invoices', 'create', '--amount', '1.00', '--json'], targetEnv(emu, 'live')));
    const r = await svc(['invoices', 'pay', inv.id], targetEnv(emu, 'live'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error 403 test_mode_only: /);
  });

  it('expire: human, --json, and 409 when it cannot', async () => {
    const a = json(await svc(['invoices', 'create', '--amount', '2.00', '--json'], env));
    const human = await svc(['invoices', 'expire', a.id], env);
    ok(human);
    expect(human.stdout).toMatch(/^status\s+EXPIRED$/m);
    const b = json(await svc(['invoices', 'create', '--amount', '2.00', '--json'], env));
    expect(json(await svc(['invoices', 'expire', b.id, '--json'], env)).invoice.status).toBe('EXPIRED');
    expect(jsonError(await svc(['invoices', 'expire', b.id, '--json'], env), 1).code).toBe('invoice_not_expirable');
  });
});

describe('trigger (events checked at a real webhook receiver)', () => {
  let receiver: Receiver;
  const secret = 'whsec_trigger_test_secret_0123456789';
  beforeAll(async () => {
    receiver = await startReceiver();
    ok(await svc(['webhook', 'set', '--url', `${receiver.url}/hooks`, '--secret', secret], env));
  });
  afterAll(() => receiver?.close());

  /** The event types delivered for one invoice, in sequence order. */
  async function delivered(invoiceId: string, count: number): Promise<string[]> {
    const mine = () => receiver.requests.map((r) => JSON.parse(r.rawBody)).filter((e) => e.data.invoiceId === invoiceId);
    for (let i = 0; i < 100 && mine().length < count; i++) await new Promise((r) => setTimeout(r, 50));
    return mine()
      .sort((a, b) => a.data.sequence - b.data.sequence)
      .map((e) => e.type);
  }

  it.each([
    ['invoice.created', ['create'], 'CREATED', '0.00', ['invoice.created']],
    ['invoice.payment_detected', ['create', 'pay'], 'CONFIRMING', '0.00', ['invoice.created', 'invoice.payment_detected']],
    ['invoice.partially_paid', ['create', 'pay'], 'PARTIALLY_PAID', '5.00', ['invoice.created', 'invoice.partially_paid']],
    ['invoice.paid', ['create', 'pay'], 'PAID', '10.00', ['invoice.created', 'invoice.paid']],
    ['invoice.overpaid', ['create', 'pay'], 'PAID', '11.00', ['invoice.created', 'invoice.paid', 'invoice.overpaid']],
    ['invoice.expired', ['create', 'expire'], 'EXPIRED', '0.00', ['invoice.created', 'invoice.expired']],
    ['invoice.paid_late', ['create', 'expire', 'pay'], 'EXPIRED', '10.00', ['invoice.created', 'invoice.expired', 'invoice.paid_late']],
  ])('%s --json', async (event, actions, status, received, events) => {
    const out = json(await svc(['trigger', event, '--json'], env));
    expect(Object.keys(out)).toEqual(['invoice', 'steps', 'event']);
    expect(out.event).toBe(event);
    expect(out.steps.map((s: { action: string }) => s.action)).toEqual(actions);
    expect(out.invoice).toMatchObject({ status, amount: '10.00', amountReceived: received });
    expect(await delivered(out.invoice.id, events.length)).toEqual(events);
  });

  it('human: one line per step, then the event', async () => {
    const r = await svc(['trigger', 'invoice.partially_paid', '--amount', '3.00'], env);
    ok(r);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^created invoice [0-9a-f-]{36} for 3\.00$/);
    expect(lines[1]).toMatch(/^paid 1\.50 USDC on Ethereum Sepolia \(11155111\) \(payment [0-9a-f-]{36}\)$/);
    expect(lines[2]).toBe('→ invoice.partially_paid  status PARTIALLY_PAID, received 1.50 of 3.00');
  });

  it('--merchant uses the partner variant; a partner key alone needs --merchant', async () => {
    const m = await emu.call('POST', '/v1/partner/merchants', {
      key: emu.keys.test.partnerKey,
      idempotencyKey: ikey(),
      body: { externalTenantId: 'trigger-sub', name: 'Sub', email: 'sub@example.com' },
    });
    const out = json(await svc(['trigger', 'invoice.paid', '--merchant', m.body.merchantId, '--json'], env));
    expect(out.invoice.merchantId).toBe(m.body.merchantId);
    expect(out.steps[0]).toMatchObject({ action: 'create', merchantId: m.body.merchantId });
    const partnerOnly = await svc(['trigger', 'invoice.paid', '--json'], { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey });
    expect(jsonError(partnerOnly, 2)).toMatchObject({ code: 'usage_error', param: '--merchant' });
  });

  it('webhook verify accepts a real delivery (payload on stdin, spawned) and rejects a wrong secret', async () => {
    const out = json(await svc(['trigger', 'invoice.created', '--json'], env));
    await delivered(out.invoice.id, 1);
    const req = receiver.requests.find((r) => r.rawBody.includes(out.invoice.id))!;
    const signature = req.headers['x-service-signature'] as string;
    const r = await spawned(['webhook', 'verify', '--secret', secret, '--signature', signature, '--json'], {}, req.rawBody);
    expect(json(r)).toEqual({ valid: true, event: JSON.parse(req.rawBody) });
    const wrong = await svc(['webhook', 'verify', '--secret', 'whsec_not_the_right_one_at_all', '--signature', signature], {}, req.rawBody);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(/^error signature_mismatch: /);
  });
});

describe('webhook get / set', () => {
  let own: TestEmulator;
  let e: Env;
  beforeAll(async () => {
    own = await startTestEmulator();
    e = targetEnv(own);
  });
  afterAll(() => own?.stop());

  it('get before any set: 404 webhook_not_configured, exit 1', async () => {
    const r = await svc(['webhook', 'get'], e);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error 404 webhook_not_configured: /);
    expect(jsonError(await svc(['webhook', 'get', '--json'], e), 1).code).toBe('webhook_not_configured');
  });

  it('set without --secret: generated once, shown on stderr; an update keeps it', async () => {
    const first = await svc(['webhook', 'set', '--url', 'http://localhost:3000/hooks', '--quiet'], e);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^url\s+http:\/\/localhost:3000\/hooks$/m);
    const secret = /(whsec_[0-9A-Za-z]{32})$/m.exec(first.stderr)?.[1];
    expect(secret, first.stderr).toBeDefined();

    const update = await svc(
      ['webhook', 'set', '--url', 'http://localhost:3000/v2', '--disable', '--header', 'X-Env: staging', '--header', 'X-Team:payments', '--json'],
      e,
    );
    const config = json(update);
    expect(update.stderr).toBe('');
    expect(config).toMatchObject({
      url: 'http://localhost:3000/v2',
      enabled: false,
      secretConfigured: true,
      customHeaders: { 'X-Env': 'staging', 'X-Team': 'payments' },
    });

    const human = await svc(['webhook', 'get'], e);
    ok(human);
    expect(human.stdout).toMatch(/^headers\s+X-Env: staging, X-Team: payments$/m);
    expect(json(await svc(['webhook', 'get', '--json'], e))).toEqual(config);
    expect(json(await svc(['webhook', 'set', '--url', 'http://localhost:3000/v2', '--enable', '--json'], e)).enabled).toBe(true);
  });

  it('--disable / --enable without --url toggle the saved webhook, keeping its URL, secret and headers (spawned)', async () => {
    const before = json(await svc(['webhook', 'get', '--json'], e));
    const off = json(await spawned(['webhook', 'set', '--disable', '--json'], e));
    expect(off).toEqual({ ...before, enabled: false, updatedAt: expect.any(String) });
    const on = await spawned(['webhook', 'set', '--enable'], e);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toMatch(/^enabled\s+yes$/m);
    expect(on.stdout).toMatch(new RegExp(`^url\\s+${before.url}$`, 'm'));
    expect(json(await svc(['webhook', 'get', '--json'], e))).toMatchObject({ url: before.url, enabled: true, customHeaders: before.customHeaders });
  });

  it('set --json without --secret: the generated secret is in the JSON (issue 24), once; an update has none (spawned)', async () => {
    const fresh = await startTestEmulator();
    try {
      const first = await spawned(['webhook', 'set', '--url', 'http://localhost:3000/hooks', '--json'], targetEnv(fresh));
      const created = json(first);
      expect(created).toMatchObject({ url: 'http://localhost:3000/hooks', secretConfigured: true, secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32}$/) });
      // The same secret the stderr line shows (a terminal user still sees it there).
      expect(first.stderr).toContain(created.secret);
      const again = json(await spawned(['webhook', 'set', '--url', 'http://localhost:3000/v2', '--json'], targetEnv(fresh)));
      expect(again).not.toHaveProperty('secret');
      expect(again.secretConfigured).toBe(true);
    } finally {
      await fresh.stop();
    }
  });

  it('--enable with no webhook saved: a usage error asking for --url, nothing created', async () => {
    const fresh = await startTestEmulator();
    try {
      const r = await svc(['webhook', 'set', '--enable', '--json'], targetEnv(fresh));
      expect(jsonError(r, 2)).toMatchObject({ code: 'usage_error', param: '--url', message: expect.stringContaining('there is none yet: pass --url') });
      expect((await fresh.call('GET', '/v1/partner/webhook', { key: fresh.keys.test.partnerKey })).status).toBe(404);
    } finally {
      await fresh.stop();
    }
  });

  it('usage errors: --enable with --disable, a malformed --header, no --url', async () => {
    const both = await svc(['webhook', 'set', '--url', 'http://x.test', '--enable', '--disable', '--json'], e);
    expect(jsonError(both, 2)).toMatchObject({ code: 'usage_error', param: '--enable' });
    const header = await svc(['webhook', 'set', '--url', 'http://x.test', '--header', 'no colon here'], e);
    expect(header.code).toBe(2);
    expect(header.stderr).toContain("--header must look like 'Name: value'");
    const url = await svc(['webhook', 'set'], e);
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('missing required option --url');
  });

  it('with --json the generated secret still goes to stderr, never into the one document on stdout', async () => {
    const r = await svc(['webhook', 'set', '--url', 'https://hooks.example.com/svc', '--json'], targetEnv(own, 'live'));
    expect(json(r)).toMatchObject({ environment: 'live', url: 'https://hooks.example.com/svc', secretConfigured: true });
    expect(r.stderr).toMatch(/^Generated webhook secret \(shown only now.*: whsec_[0-9A-Za-z]{32}\n$/);
  });

  it('the service refuses a live webhook on http: exit 1, the error names url', async () => {
    const r = await svc(['webhook', 'set', '--url', 'http://example.com/hooks', '--secret', 'a-live-secret-0123456789', '--json'], targetEnv(own, 'live'));
    expect(jsonError(r, 1)).toMatchObject({ code: 'webhook_url_not_allowed', param: 'url' });
  });
});

describe('webhook verify (offline: no service configured at all)', () => {
  const secret = 'whsec_offline_verify_secret_0001';
  const body = JSON.stringify({ id: 'inv-1', type: 'invoice.paid', createdAt: '2026-01-01T00:00:00.000Z', data: { invoiceId: 'inv', status: 'PAID' } });
  const file = path.join(dir, 'body.json');
  fs.writeFileSync(file, body);

  it('valid, from --payload-file: human and --json', async () => {
    const sig = signatureHeader(secret, Math.floor(Date.now() / 1000), body);
    const human = await svc(['webhook', 'verify', '--secret', secret, '--signature', sig, '--payload-file', 'body.json'], {});
    ok(human);
    expect(human.stdout).toMatch(/^signature valid\nevent\s+inv-1\ntype\s+invoice\.paid/);
    expect(json(await svc(['webhook', 'verify', '--secret', secret, '--signature', sig, '--payload-file', file, '--json'], {}))).toEqual({
      valid: true,
      event: JSON.parse(body),
    });
  });

  it('too old for --tolerance, a changed body, a missing flag', async () => {
    const old = signatureHeader(secret, Math.floor(Date.now() / 1000) - 120, body);
    expect(json(await svc(['webhook', 'verify', '--secret', secret, '--signature', old, '--json'], {}, body)).valid).toBe(true);
    const late = await svc(['webhook', 'verify', '--secret', secret, '--signature', old, '--tolerance', '60', '--json'], {}, body);
    expect(jsonError(late, 1)).toEqual({ code: 'timestamp_too_old', message: expect.stringContaining('the limit is 60 s') });
    const changed = await svc(['webhook', 'verify', '--secret', secret, '--signature', old, '--json'], {}, `${body} `);
    expect(jsonError(changed, 1).code).toBe('signature_mismatch');
    const missing = await svc(['webhook', 'verify', '--secret', secret, '--json'], {}, body);
    expect(jsonError(missing, 2)).toMatchObject({ param: '--signature' });
    const noFile = await svc(['webhook', 'verify', '--secret', secret, '--signature', old, '--payload-file', 'nope.json'], {});
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toContain('cannot read --payload-file nope.json');
  });
});

describe('time', () => {
  let own: TestEmulator;
  let e: Env;
  beforeAll(async () => {
    own = await startTestEmulator();
    e = targetEnv(own);
  });
  afterAll(() => own?.stop());

  it('show: human and --json', async () => {
    const human = await svc(['time', 'show'], e);
    ok(human);
    expect(human.stdout).toMatch(/^now\s+\d{4}-\d\d-\d\dT/m);
    expect(human.stdout).toMatch(/^offset\s+none \(real time\)$/m);
    expect(json(await svc(['time', 'show', '--json'], e))).toEqual({ now: expect.any(String), offsetSeconds: 0 });
  });

  it('advance: runs the expiries that fall due; human, --json (spawned), bad durations', async () => {
    ok(await svc(['invoices', 'create', '--amount', '1.00'], e));
    const human = await svc(['time', 'advance', '2h'], e);
    ok(human);
    expect(human.stdout).toMatch(/^advanced\s+2h$/m);
    expect(human.stdout).toMatch(/^ran\s+1 expiry, 0 delivery attempts$/m);
    const r = await spawned(['time', 'advance', '90s', '--json'], e);
    expect(json(r)).toMatchObject({ advancedSeconds: 90, offsetSeconds: 7290, expired: 0, deliveryAttempts: 0 });
    expect(r.stderr).toBe('');
    for (const bad of ['soon', '0', '1w']) {
      const b = await svc(['time', 'advance', bad, '--json'], e);
      expect(jsonError(b, 2)).toMatchObject({ code: 'usage_error', param: '<duration>' });
    }
  });
});

describe('status, keys list, openapi', () => {
  it('status: the target, its sources, and that it answers (spawned --json)', async () => {
    const human = await svc(['status'], env);
    ok(human);
    expect(human.stdout).toMatch(new RegExp(`^service\\s+${emu.url}  \\(environment\\)$`, 'm'));
    expect(human.stdout).toMatch(/^answers\s+yes: svc emulator /m);
    expect(human.stdout).toMatch(/^partner key\s+pt_test_\w{4}…\w{4} {2}\(environment, test\)$/m);
    const s = json(await spawned(['status', '--json'], env));
    expect(s).toMatchObject({
      baseUrl: emu.url,
      baseUrlSource: 'environment',
      profile: null,
      partnerKey: { source: 'environment', environment: 'test', hint: expect.stringMatching(/^pt_test_\w{4}…\w{4}$/) },
      merchantKey: { source: 'environment', environment: 'test' },
      localEmulator: null,
      answers: true,
      service: { kind: 'emulator' },
      problem: null,
    });
    expect(JSON.stringify(s)).not.toContain(emu.keys.test.partnerKey);
  });

  it('status: a service that is not the emulator answers too; a closed port is exit 3', async () => {
    const other = await startReceiver({ status: 404, body: '{"error":{"code":"not_found","message":"no"}}', headers: { 'content-type': 'application/json' } });
    try {
      expect(json(await svc(['status', '--json', '--base-url', other.url], {}))).toMatchObject({
        answers: true,
        service: { kind: 'http', status: 404 },
        baseUrlSource: 'flag',
      });
      // ...and commands that need the emulator's control plane say what is wrong.
      const t = await svc(['time', 'show'], { SVC_BASE_URL: other.url });
      expect(t.code).toBe(1);
      expect(t.stderr).toContain('is not the emulator');
    } finally {
      await other.close();
    }
    const port = await closedPort();
    const down = await svc(['status'], { SVC_BASE_URL: `http://127.0.0.1:${port}` });
    expect(down.code).toBe(3);
    expect(down.stdout).toMatch(/^answers\s+no: cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused/m);
    expect(json(await svc(['status', '--json'], { SVC_BASE_URL: `http://127.0.0.1:${port}` }), 3)).toMatchObject({ answers: false, service: null });
  });

  it('keys list: the keys in use with their sources, and the emulator defaults (spawned --json)', async () => {
    const human = await svc(['keys', 'list'], env);
    ok(human);
    expect(human.stdout).toMatch(/^partner\s+pt_test_\w{4}…\w{4}\s+test\s+environment$/m);
    expect(human.stdout).toContain(`test merchant key  ${emu.keys.test.merchantKey}  (merchant ${emu.keys.test.merchantId})`);
    const k = json(await spawned(['keys', 'list', '--json'], { ...env, SVC_MERCHANT_KEY: '' }));
    expect(k).toEqual({
      baseUrl: emu.url,
      inUse: [{ kind: 'partner', hint: expect.any(String), environment: 'test', source: 'environment' }],
      emulatorDefaults: emu.keys,
    });
  });

  it('openapi: the document on stdout, or written to --output (JSON or YAML)', async () => {
    const human = await svc(['openapi'], env);
    ok(human);
    const doc = JSON.parse(human.stdout);
    expect(doc.openapi).toMatch(/^3\./);
    expect(json(await svc(['openapi', '--json'], env))).toEqual(doc);
    const written = json(await svc(['openapi', '-o', 'api.json', '--json'], env));
    expect(written).toEqual({ file: path.join(dir, 'api.json'), openapi: doc.openapi, paths: Object.keys(doc.paths).length });
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'api.json'), 'utf8'))).toEqual(doc);
    const yaml = await svc(['openapi', '--output', 'api.yaml'], env);
    ok(yaml);
    expect(yaml.stdout).toMatch(/^wrote api\.yaml \(OpenAPI 3\.\d\.\d, \d+ paths\)\n$/);
    expect(fs.readFileSync(path.join(dir, 'api.yaml'), 'utf8')).toMatch(/^openapi: 3\./);
  });
});

describe('exit codes of the built CLI', () => {
  it('2: a missing required flag when not a TTY names the flag; --json gets one error document', async () => {
    const human = await spawned(['merchants', 'create', '--name', 'X'], env);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(human.stderr).toContain('missing required option --external-tenant-id');
    const r = await spawned(['merchants', 'create', '--name', 'X', '--json'], env);
    expect(jsonError(r, 2)).toMatchObject({ code: 'usage_error', param: '--external-tenant-id' });
    // Commander's own usage errors too.
    expect(jsonError(await spawned(['invoices', 'list', '--limit', 'abc', '--json'], env), 2).message).toContain('--limit must be a positive whole number');
  });

  it('3: the service is unreachable (a closed port)', async () => {
    const unreachable = { ...env, SVC_BASE_URL: `http://127.0.0.1:${await closedPort()}` };
    const human = await spawned(['invoices', 'list'], unreachable);
    expect(human.code).toBe(3);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^error cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused/);
    expect(jsonError(await spawned(['invoices', 'list', '--json'], unreachable), 3).code).toBe('service_unreachable');
  });

  it('1: a user error (no target at all) is exit 1 with the contract-shaped document', async () => {
    const r = await spawned(['invoices', 'list', '--json'], {});
    expect(jsonError(r, 1)).toMatchObject({ code: 'no_target', message: 'no service to talk to' });
  });
});

describe('colour', () => {
  /** Runs in-process with a stdout that claims to be a TTY. */
  async function onTty(args: string[], extraEnv: Env): Promise<string> {
    let out = '';
    const stdout = Object.assign(
      new Writable({
        write: (chunk, _e, done) => {
          out += String(chunk);
          done();
        },
      }),
      { isTTY: true },
    );
    const stderr = new Writable({ write: (_c, _e, done) => done() });
    const program = buildProgram({ setExitCode: () => {}, io: { stdout, stderr, stdinIsTTY: false, cwd: dir, env: { ...NO_TARGET, ...env, ...extraEnv } } });
    await program.parseAsync(args, { from: 'user' });
    return out;
  }

  it('none when not a TTY even without NO_COLOR; on a TTY only without NO_COLOR and --no-color', async () => {
    const plain = await svc(['status'], { ...env, NO_COLOR: '' });
    ok(plain);
    expect(await onTty(['status'], { NO_COLOR: '' })).toMatch(ANSI);
    expect(await onTty(['status'], { NO_COLOR: '1' })).not.toMatch(ANSI);
    expect(await onTty(['status', '--no-color'], { NO_COLOR: '' })).not.toMatch(ANSI);
    expect(await onTty(['status'], { NO_COLOR: '', FORCE_COLOR: '0' })).not.toMatch(ANSI);
  });

  // Node's util.styleText paints now, not chalk (issue 39): NO_COLOR and FORCE_COLOR as before, and as documented.
  it('FORCE_COLOR colours off a terminal; NO_COLOR and --no-color win over it (spawned)', async () => {
    const run = async (args: string[], extra: Env) => {
      const r = await runCli(args, { cwd: dir, env: { ...NO_TARGET, ...env, NO_COLOR: '', ...extra } });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    expect(await run(['status'], { FORCE_COLOR: '1' })).toMatch(ANSI);
    expect(await run(['status'], { FORCE_COLOR: '1', NO_COLOR: '1' })).not.toMatch(ANSI);
    expect(await run(['status', '--no-color'], { FORCE_COLOR: '1' })).not.toMatch(ANSI);
    expect(await run(['status'], { FORCE_COLOR: '0' })).not.toMatch(ANSI);
  });
});
