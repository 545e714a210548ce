/**
 * CONTRACT §8 "A control token guards every client" (issue 40): with `svc dev --control-token`, the
 * control plane wants the token from loopback clients too (a same-host proxy forwards other
 * people's requests from there), and local `svc` commands find it where they find the emulator:
 * `.svc/dev.json`, mode 0600. Every kind of control call a command makes (requests, a stream, the
 * listener, fixtures, `svc exec`'s command) works in the folder with no token given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, spawnCli } from '../helpers/cli.js';
import { request } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = 'local-token-0123456789';
const each = perTest();
// Nothing from the test's own environment: the folder's .svc/dev.json is the only way to the token.
const env = { SVC_CONTROL_TOKEN: '', SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };

async function devWithToken(dir: string, ...extra: string[]) {
  const dev = each.track(spawnCli(['dev', '--port', '0', '--memory', '--json', '--control-token', TOKEN, ...extra], { cwd: dir, env }));
  const ready = JSON.parse(await dev.waitForLine((l) => l.startsWith('{"type":"ready"'), 30_000)) as { baseUrl: string };
  return { dev, url: ready.baseUrl };
}

describe('a local svc dev with a control token', () => {
  it('refuses loopback clients without it, records it in .svc/dev.json (0600), and the commands in the folder send it', async () => {
    const dir = tempDir();
    const { url } = await devWithToken(dir);

    const refused = await request(url, 'GET', '/__emulator/keys');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'control_plane_forbidden']);
    const file = path.join(dir, '.svc', 'dev.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).controlToken).toBe(TOKEN);

    const svc = (...args: string[]) => runCli(args, { cwd: dir, env });
    for (const args of [
      ['time', 'show', '--json'],
      ['time', 'advance', '60', '--json'],
      ['faults', 'list', '--json'],
      ['snapshot', 'save', 'one', '--json'],
      ['snapshot', 'list', '--json'],
      ['webhook', 'chaos', 'show', '--json'],
      ['webhook', 'listeners', '--json'],
      ['status', '--json'],
    ]) {
      const r = await svc(...args);
      expect(r.code, `svc ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(r.stdout).not.toContain('control_plane_forbidden');
    }
    const keys = await svc('keys', 'list', '--json');
    expect(JSON.parse(keys.stdout).emulatorDefaults).not.toBeNull();
    expect(JSON.parse((await svc('status', '--json')).stdout).service.kind).toBe('emulator');

    // `svc open` hands it to the dashboard in the fragment, which no server sees.
    const opener = path.join(dir, 'browser.sh');
    const seen = path.join(dir, 'seen.txt');
    fs.writeFileSync(opener, `#!/bin/sh\necho "$1" > ${JSON.stringify(`${seen}.part`)} && mv ${JSON.stringify(`${seen}.part`)} ${JSON.stringify(seen)}\n`, {
      mode: 0o755,
    });
    const opened = await runCli(['open', '--json'], { cwd: dir, env: { ...env, SVC_BROWSER: opener } });
    expect(JSON.parse(opened.stdout)).toEqual({ url: `${url}/__emulator/ui/`, opened: true });
    for (let i = 0; i < 500 && !fs.existsSync(seen); i++) await new Promise((r) => setTimeout(r, 20));
    expect(fs.readFileSync(seen, 'utf8').trim()).toBe(`${url}/__emulator/ui/#token=${TOKEN}`);

    // A stream (the listener's, through the control plane) connects with it.
    const rx = await each.receiver();
    const listen = each.track(spawnCli(['webhook', 'listen', '--forward-to', `${rx.url}/hooks`], { cwd: dir, env }));
    await listen.waitForLine((l) => l.startsWith('Ready!'), 30_000);
    const created = await svc('invoices', 'create', '--amount', '1.00', '--json');
    expect(created.code, created.stderr).toBe(0);
    await rx.waitFor(1);
  });

  it('svc dev --fixtures runs control steps with it, and svc exec hands it to the command', async () => {
    const dir = tempDir();
    const fixtures = path.join(dir, 'fixtures.json');
    fs.writeFileSync(fixtures, JSON.stringify({ steps: [{ name: 'later', method: 'POST', path: '/__emulator/clock/advance', body: { seconds: 60 } }] }));
    const { dev } = await devWithToken(dir, '--fixtures', fixtures);
    const applied = JSON.parse(await dev.waitForLine((l) => l.startsWith('{"type":"fixtures"'), 30_000));
    expect(applied.steps.later.offsetSeconds).toBe(60);

    const ran = await runCli(['exec', '--control-token', TOKEN, '--', process.execPath, BIN, 'time', 'show', '--json'], {
      cwd: tempDir(),
      env,
    });
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).offsetSeconds).toBe(0);
  });
});
