/**
 * Every table the CLI prints heads its columns in one case, lower case (issue 38: `svc faults list`,
 * `svc snapshot list` and `svc webhook listeners` shouted theirs while the rest did not). Each list
 * command runs spawned against an emulator holding one row of what it lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

let emu: TestEmulator;
let env: Record<string, string>;
const cwd = tempDir('svc-tables-');

beforeAll(async () => {
  emu = await startTestEmulator();
  env = { SVC_PROFILE: '', SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey, SVC_MERCHANT_KEY: emu.keys.test.merchantKey };
  const api = emu.client.test;
  dataOf(await api.putWebhook({ body: { url: 'http://127.0.0.1:9/hooks', secret: 'whsec_tables_0123456789' } }));
  dataOf(await api.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
  dataOf(await api.registerListener({ body: { forwardTo: 'http://127.0.0.1:9/hooks', events: null, timeoutSeconds: 10 } }));
  for (const args of [
    ['faults', 'add', '--path', '/v1/invoices', '--status', '503'],
    ['snapshot', 'save', 'tables'],
  ]) {
    const r = await runCli(args, { cwd, env });
    expect(r.code, r.stderr).toBe(0);
  }
});
afterAll(() => emu?.stop());

describe('table headers', () => {
  it.each([
    [['invoices', 'list']],
    [['merchants', 'list']],
    [['webhook', 'deliveries', 'list']],
    [['webhook', 'listeners']],
    [['faults', 'list']],
    [['snapshot', 'list']],
  ])('svc %j: the header line is lower case', async (args) => {
    const r = await runCli(args, { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    const [header, first] = r.stdout.split('\n');
    expect(first, r.stdout).toBeTruthy(); // a row under it: the header is a table's
    expect(header).toMatch(/^[a-z]/);
    expect(header).toBe(header!.toLowerCase());
  });
});
