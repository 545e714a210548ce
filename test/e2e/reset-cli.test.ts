import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';
import { HAS_TMUX, svcInTerminal, type Terminal } from '../helpers/tty.js';

/**
 * `svc reset` (issue 24) against a real emulator: it deletes everything but the default keys, so it
 * asks on a terminal and needs --yes elsewhere. "Nothing deleted" is checked by reading the invoice
 * back over HTTP.
 */
let emu: TestEmulator;
let terminal: Terminal | undefined;
afterEach(async () => {
  terminal?.close();
  terminal = undefined;
  await emu?.stop();
});

const NO_PROFILE = { SVC_PROFILE: '' };
const target = (e: TestEmulator) => ({
  ...NO_PROFILE,
  SVC_BASE_URL: e.url,
  SVC_PARTNER_KEY: e.keys.test.partnerKey,
  SVC_MERCHANT_KEY: e.keys.test.merchantKey,
});

async function invoice(e: TestEmulator): Promise<string> {
  const res = await e.call('POST', '/v1/invoices', { key: e.keys.test.merchantKey, body: { amount: '5.00' }, idempotencyKey: ikey() });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}
const status = async (e: TestEmulator, id: string) => (await e.call('GET', `/v1/invoices/${id}`, { key: e.keys.test.merchantKey })).status;

describe('svc reset', () => {
  it('off a terminal without --yes: a usage error naming --yes (exit 2), nothing deleted', async () => {
    emu = await startTestEmulator();
    const id = await invoice(emu);
    const r = await runCli(['reset'], { cwd: tempDir(), env: target(emu) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('pass --yes to confirm');
    const json = await runCli(['reset', '--json'], { cwd: tempDir(), env: target(emu) });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'usage_error', param: '--yes' });
    expect(await status(emu, id)).toBe(200);
  });

  it('--yes: resets at once; the data is gone, the default keys still work', async () => {
    emu = await startTestEmulator();
    const id = await invoice(emu);
    const r = await runCli(['reset', '--yes', '--json'], { cwd: tempDir(), env: target(emu) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'reset', keys: { test: { merchantKey: emu.keys.test.merchantKey } } });
    expect(await status(emu, id)).toBe(404);
    const human = await runCli(['reset', '--yes'], { cwd: tempDir(), env: target(emu) });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^reset\\s+${emu.url}$`, 'm'));
  });

  it.skipIf(!HAS_TMUX)('on a terminal: asks first; "n" deletes nothing (exit 1), "y" resets', async () => {
    emu = await startTestEmulator();
    const id = await invoice(emu);
    terminal = svcInTerminal(['reset'], { cwd: tempDir(), env: target(emu) });
    await terminal.waitFor(/Delete all data of the emulator at http:\/\/127\.0\.0\.1:\d+\?/, 20_000);
    terminal.type('n');
    terminal.press('Enter');
    expect(await terminal.waitFor(/\[exit \d+\]/, 20_000)).toMatch(/not reset: nothing was deleted[\s\S]*\[exit 1\]/);
    expect(await status(emu, id)).toBe(200);
    terminal.close();

    terminal = svcInTerminal(['reset'], { cwd: tempDir(), env: target(emu) });
    await terminal.waitFor(/Delete all data/, 20_000);
    terminal.type('y');
    terminal.press('Enter');
    expect(await terminal.waitFor(/\[exit \d+\]/, 20_000)).toMatch(/\[exit 0\]/);
    expect(await status(emu, id)).toBe(404);
  });
});
