/**
 * An exposed emulator is no open proxy (CONTRACT §8, issue 40), as people run it: `svc dev --host
 * 0.0.0.0` refuses a webhook URL on this machine (`svc webhook set`: exit 1 naming the option), while
 * `svc webhook listen` still forwards to the app on localhost (its stream needs no URL the emulator
 * connects to); `--webhook-allow` (or SVC_WEBHOOK_ALLOW) lets a listed receiver through, and a bad
 * entry is a usage error naming the flag.
 */
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

const each = perTest();
const SECRET = 'whsec_exposed_0123456789';
const env = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_CONTROL_TOKEN: '', SVC_PROFILE: '', SVC_WEBHOOK_ALLOW: '' };

async function exposedDev(dir: string, extraEnv: Record<string, string> = {}, ...extra: string[]) {
  const dev = each.track(spawnCli(['dev', '--host', '0.0.0.0', '--port', '0', '--memory', '--json', ...extra], { cwd: dir, env: { ...env, ...extraEnv } }));
  await dev.waitForLine((l) => l.startsWith('{"type":"ready"'), 30_000);
  return dev;
}

describe('svc dev --host 0.0.0.0 and webhooks', () => {
  it('refuses a webhook URL on this machine, while svc webhook listen still forwards to localhost', async () => {
    const dir = tempDir();
    await exposedDev(dir);
    const rx = await each.receiver();
    const svc = (...args: string[]) => runCli(args, { cwd: dir, env });

    const refused = await svc('webhook', 'set', '--url', `${rx.url}/hooks`, '--secret', SECRET, '--json');
    expect(refused.code).toBe(1);
    const error = JSON.parse(refused.stdout).error;
    expect(error.code).toBe('webhook_url_not_allowed');
    expect(error.message).toContain('--webhook-allow');
    expect((await svc('webhook', 'get', '--json')).code).toBe(1);

    const listen = each.track(spawnCli(['webhook', 'listen', '--forward-to', `${rx.url}/hooks`], { cwd: dir, env }));
    await listen.waitForLine((l) => l.startsWith('Ready!'), 30_000);
    expect((await svc('invoices', 'create', '--amount', '1.00', '--json')).code).toBe(0);
    const [got] = await rx.waitFor(1);
    expect(JSON.parse(got!.rawBody).type).toBe('invoice.created');
  });

  it('--webhook-allow and SVC_WEBHOOK_ALLOW let a listed receiver through; a bad entry is a usage error naming the flag', async () => {
    const rx = await each.receiver();
    for (const [extraEnv, flags] of [
      [{}, ['--webhook-allow', 'example.test,127.0.0.1']],
      [{ SVC_WEBHOOK_ALLOW: '127.0.0.0/8' }, []],
    ] as const) {
      const dir = tempDir();
      await exposedDev(dir, extraEnv, ...flags);
      const svc = (...args: string[]) => runCli(args, { cwd: dir, env });
      const set = await svc('webhook', 'set', '--url', `${rx.url}/hooks`, '--secret', SECRET, '--json');
      expect(set.code, set.stdout + set.stderr).toBe(0);
      const before = rx.requests.length;
      expect((await svc('invoices', 'create', '--amount', '1.00', '--json')).code).toBe(0);
      await rx.waitFor(before + 1);
    }

    const bad = await runCli(['dev', '--host', '0.0.0.0', '--port', '0', '--memory', '--webhook-allow', 'http://10.0.0.1/'], { cwd: tempDir(), env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--webhook-allow');
  });
});
