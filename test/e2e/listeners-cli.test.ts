import { afterEach, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type LiveCli } from '../helpers/cli.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `svc webhook listeners` (issue 24): lists the partner's registered listeners through
 * GET /__emulator/listeners, removes one (`--remove <id>`) or all (`--all`) through
 * DELETE /__emulator/listener, against a real emulator and a real `svc webhook listen`.
 */
let emu: TestEmulator;
const spawned: LiveCli[] = [];
afterEach(async () => {
  await Promise.all(spawned.splice(0).map((p) => p.stop('SIGKILL')));
  await emu?.stop();
});

const env = () => ({ SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey, SVC_MERCHANT_KEY: '', SVC_PROFILE: '' });
const svc = (...args: string[]) => runCli(['webhook', 'listeners', ...args], { cwd: tempDir(), env: env() });
const FORWARD_TO = 'http://127.0.0.1:9/hooks';

describe('svc webhook listeners', () => {
  it('lists a running listen as connected; once it is killed, as gone with the time it will be removed', async () => {
    emu = await startTestEmulator();
    expect(JSON.parse((await svc('--json')).stdout)).toEqual({ data: [] });
    expect((await svc()).stdout).toBe('(no listener registered)\n');

    const listen = spawnCli(['webhook', 'listen', '--forward-to', FORWARD_TO, '--events', 'invoice.paid'], { cwd: tempDir(), env: env() });
    spawned.push(listen);
    await listen.waitForLine((l) => l.startsWith('Ready!'));
    const connected = await svc('--json');
    expect(connected.code, connected.stderr).toBe(0);
    expect(JSON.parse(connected.stdout).data).toEqual([
      { id: 'test', environment: 'test', forwardTo: FORWARD_TO, events: ['invoice.paid'], connected: true, removeAt: null, updatedAt: expect.any(String) },
    ]);
    const human = await svc();
    expect(human.stdout).toMatch(/^id\s+forward to\s+events\s+state\ntest\s+http:\/\/127\.0\.0\.1:9\/hooks\s+invoice\.paid\s+connected\n$/);

    // Killed: no goodbye. It stays for its reconnect window, which the list shows.
    listen.child.kill('SIGKILL');
    await listen.exited;
    await expect.poll(async () => JSON.parse((await svc('--json')).stdout).data[0]?.connected).toBe(false);
    const [gone] = JSON.parse((await svc('--json')).stdout).data;
    expect(Date.parse(gone.removeAt) - Date.parse(gone.updatedAt)).toBe(5 * 60_000);
  });

  it('--remove <id> removes it and ends its waiting deliveries; an unknown id is exit 1; --all removes what is there', async () => {
    emu = await startTestEmulator();
    const pt = emu.keys.test.partnerKey;
    await emu.call('PUT', '/__emulator/listener', { key: pt, body: { forwardTo: FORWARD_TO } });
    const inv = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, body: { amount: '1' }, idempotencyKey: ikey() });
    const deliveries = async () => (await emu.call('GET', `/v1/partner/webhook/deliveries?invoiceId=${inv.body.id}`, { key: pt })).body.data;
    await expect.poll(async () => (await deliveries())[0]?.status).toBe('retrying');

    const unknown = await svc('--remove', 'live', '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error).toMatchObject({ code: 'listener_not_found', message: expect.stringContaining('registered: test') });
    expect(JSON.parse((await svc('--json')).stdout).data).toHaveLength(1);

    const removed = await svc('--remove', 'test', '--json');
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ removed: ['test'], data: [] });
    expect(await deliveries()).toEqual([expect.objectContaining({ status: 'failed', lastError: expect.stringMatching(/^listener_removed:/) })]);
    expect(JSON.parse((await svc('--json')).stdout)).toEqual({ data: [] });

    await emu.call('PUT', '/__emulator/listener', { key: pt, body: { forwardTo: FORWARD_TO } });
    const all = await svc('--all');
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toBe('removed test; its waiting deliveries end failed\n');
    expect(JSON.parse((await svc('--json')).stdout)).toEqual({ data: [] });
    expect((await svc('--remove', 'test', '--all')).code).toBe(2);
  });
});
