import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runInProcess, type RunResult } from '../helpers/cli.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `svc trigger <event>` with the invoice's fields (CONTRACT §9): `--reference-id`, `--network-id`,
 * `--token`, `--merchant`, applied to the invoice it creates; every payment it makes is on the
 * locked route. Checked on what the emulator stored, not only on what trigger printed.
 */
let emu: TestEmulator;
let env: Record<string, string>;
const dir = tempDir('svc-trigger-');
const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };

beforeAll(async () => {
  emu = await startTestEmulator();
  env = { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey, SVC_MERCHANT_KEY: emu.keys.test.merchantKey };
});
afterAll(() => emu.stop());

const trigger = (args: string[], e: Record<string, string> = env) => runInProcess(['trigger', ...args], { cwd: dir, env: { ...NO_TARGET, ...e } });
function json(r: RunResult, code = 0): any {
  expect(r.code, r.stderr).toBe(code);
  return JSON.parse(r.stdout);
}
/** The invoice as the emulator has it. */
async function stored(invoiceId: string) {
  const invoice = await emu.call('GET', `/v1/partner/invoices/${invoiceId}`, { key: emu.keys.test.partnerKey });
  expect(invoice.status).toBe(200);
  return invoice.body;
}
const routes = (invoice: { addresses: { networkId: number; tokens: { symbol: string }[] }[] }) =>
  invoice.addresses.map((a) => [a.networkId, a.tokens.map((t) => t.symbol)]);

describe('svc trigger with the invoice’s fields', () => {
  it('--reference-id, --network-id and --token: on the invoice created, and the payment made on that route (invoice.paid)', async () => {
    const out = json(await trigger(['invoice.paid', '--reference-id', 'order-42', '--network-id', '84532', '--token', 'USDC', '--json']));
    expect(out.invoice).toMatchObject({ referenceId: 'order-42', status: 'PAID', amountReceived: '10.00' });
    expect(routes(out.invoice)).toEqual([[84532, ['USDC']]]);
    expect(out.steps[1]).toMatchObject({ action: 'pay', networkId: 84532, token: 'USDC', amount: '10.00', confirmed: true });
    const invoice = await stored(out.invoice.id);
    expect(invoice).toMatchObject({ referenceId: 'order-42', status: 'PAID' });
    expect(routes(invoice)).toEqual([[84532, ['USDC']]]);
  });

  it('--token alone locks the token: the payment is made in it, on a chain that carries it (USDT: Tron Shasta)', async () => {
    const out = json(await trigger(['invoice.partially_paid', '--token', 'USDT', '--amount', '4.00', '--json']));
    expect(routes(out.invoice)).toEqual([[2494104990, ['USDT']]]);
    expect(out.steps[1]).toMatchObject({ action: 'pay', networkId: 2494104990, token: 'USDT', amount: '2.00' });
    expect(out.invoice).toMatchObject({ status: 'PARTIALLY_PAID', amountReceived: '2.00', referenceId: 'svc trigger invoice.partially_paid' });
  });

  it('every payment of a multi-step event is on the lock (invoice.paid_late: expire, then pay); human output names the route', async () => {
    const r = await trigger(['invoice.paid_late', '--network-id', '80002']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^expired invoice /);
    expect(lines[2]).toMatch(/^paid 10\.00 USDC on Polygon Amoy \(80002\) \(payment [0-9a-f-]{36}\)$/);
    expect(lines[3]).toBe('→ invoice.paid_late  status EXPIRED, received 10.00 of 10.00');
    const id = /^created invoice ([0-9a-f-]{36})/.exec(lines[0]!)![1]!;
    expect(routes(await stored(id))).toEqual([[80002, ['USDC']]]);
  });

  it('--merchant with a lock: the partner variant, for that sub-merchant, on its route', async () => {
    const m = await emu.call('POST', '/v1/partner/merchants', {
      key: emu.keys.test.partnerKey,
      idempotencyKey: ikey(),
      body: { externalTenantId: 'trigger-fields-sub', name: 'Sub', email: 'sub@example.com' },
    });
    const out = json(await trigger(['invoice.overpaid', '--merchant', m.body.merchantId, '--network-id', '421614', '--reference-id', 'sub-1', '--json']));
    expect(out.invoice).toMatchObject({ merchantId: m.body.merchantId, referenceId: 'sub-1', status: 'PAID', amountReceived: '11.00' });
    expect(out.steps[0]).toMatchObject({ action: 'create', merchantId: m.body.merchantId });
    expect(out.steps[1]).toMatchObject({ action: 'pay', networkId: 421614, token: 'USDC' });
    expect(routes(await stored(out.invoice.id))).toEqual([[421614, ['USDC']]]);
  });

  it('a route the merchant cannot be paid on: the service’s 400 route_not_available (exit 1), and no invoice created', async () => {
    const before = await emu.call('GET', '/v1/partner/invoices?limit=100', { key: emu.keys.test.partnerKey });
    const r = await trigger(['invoice.paid', '--network-id', '1', '--json']);
    expect(json(r, 1)).toEqual({ error: expect.objectContaining({ code: 'route_not_available', param: 'networkId' }) });
    const wrongToken = await trigger(['invoice.paid', '--network-id', '84532', '--token', 'USDT']);
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/^error 400 route_not_available \(token\): /);
    const after = await emu.call('GET', '/v1/partner/invoices?limit=100', { key: emu.keys.test.partnerKey });
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  it('spawned: the built CLI takes the same flags; --network-id must be a whole number (usage, exit 2)', async () => {
    const r = await runCli(['trigger', 'invoice.created', '--reference-id', 'spawned-1', '--network-id', '84532', '--json'], {
      cwd: dir,
      env: { ...NO_TARGET, ...env },
    });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.invoice).toMatchObject({ referenceId: 'spawned-1', status: 'CREATED' });
    expect(routes(out.invoice)).toEqual([[84532, ['USDC']]]);
    const bad = await trigger(['invoice.paid', '--network-id', 'base']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--network-id must be a whole number, not "base"/);
  });
});
