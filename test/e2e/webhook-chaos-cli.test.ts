import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

/** `svc webhook chaos set|show|clear` and `svc webhook listen --chaos`, spawned from the build. */
const each = perTest();

describe('svc webhook chaos', () => {
  it('set, show and clear for the key’s partner; bad values name the flag', async () => {
    const emu = await each.emulator();
    const env = { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey, SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };
    const svc = (...args: string[]) => runCli(['webhook', 'chaos', ...args], { cwd: tempDir(), env });
    const set = await svc('set', '--duplicate', '0.3', '--reorder', '--delay', '100-500', '--seed', '9', '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ active: true, duplicate: 0.3, reorder: true, delayMs: [100, 500], seed: 9 });
    const show = await svc('show');
    expect(show.stdout).toMatch(/duplicate\s+30% of attempts/);
    expect(show.stdout).toMatch(/delay\s+100–500 ms/);
    expect((await svc('clear')).code).toBe(0);
    expect((await svc('show')).stdout).toContain('no webhook chaos');
    const bad = await svc('set', '--duplicate', '2');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--duplicate');
    const range = await svc('set', '--delay', '500-100', '--json');
    expect(range.code).toBe(1);
    expect(JSON.parse(range.stdout).error.param).toBe('delayMs');
  });
});

describe('svc webhook listen --chaos', () => {
  it('duplicates each forward while it runs, and ends the chaos when it stops', async () => {
    const emu = await each.emulator();
    const receiver = await each.receiver();
    const env = { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey };
    const p = spawnCli(['webhook', 'listen', '--forward-to', receiver.url, '--chaos', 'duplicate', '--chaos-seed', '1'], { cwd: tempDir(), env });
    each.track(p);
    await p.waitForLine((l) => l.startsWith('Ready!'));
    // --chaos duplicate sends half of the attempts twice (decided by the seed: the same every run).
    for (let i = 0; i < 6; i++) {
      const res = await request(emu.url, 'POST', '/v1/invoices', { key: emu.keys.test.merchantKey, body: { amount: '5.00' }, idempotencyKey: ikey() });
      expect(res.status).toBe(201);
    }
    const ids = () => receiver.requests.map((r) => JSON.parse(r.rawBody).id as string);
    for (let i = 0; i < 200 && new Set(ids()).size < 6; i++) await new Promise((r) => setTimeout(r, 25));
    expect(new Set(ids()).size).toBe(6);
    expect(ids().length).toBeGreaterThan(6);
    expect((await request(emu.url, 'GET', '/__emulator/webhook-chaos', { key: emu.keys.test.partnerKey })).body.active).toBe(true);
    expect(await p.stop('SIGINT')).toBe(0);
    expect((await request(emu.url, 'GET', '/__emulator/webhook-chaos', { key: emu.keys.test.partnerKey })).body.active).toBe(false);
  });

  it('an unknown kind is a usage error naming --chaos', async () => {
    const r = await runCli(['webhook', 'listen', '--forward-to', '3000', '--chaos', 'explode'], {
      cwd: tempDir(),
      env: { SVC_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--chaos');
  });
});
