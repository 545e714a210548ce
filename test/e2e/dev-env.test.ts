/**
 * `svc dev` settings from SVC_* variables (docs/cli.md "Environment variables"), as the container
 * image sets them: defaults < config file < environment < flags.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from '../helpers/emulator.js';
import { runCli, spawnCli, type LiveCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const running: LiveCli[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});

describe('svc dev from the environment', () => {
  it('environment over the config file, flags over the environment; SVC_CONFIG names the file', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'elsewhere', 'team.config.json');
    fs.mkdirSync(path.dirname(config));
    fs.writeFileSync(config, JSON.stringify({ seed: 1, allowedHosts: ['from-file.lan'] }));
    const env = {
      SVC_CONFIG: config,
      SVC_PORT: '0',
      SVC_DB: path.join(dir, 'data', 'env.sqlite'),
      SVC_SEED: '5',
      SVC_CLOCK_START: '2030-01-01T00:00:00Z',
      SVC_ALLOWED_HOSTS: 'svc,app',
      SVC_PUBLIC_URL: 'http://svc:4747',
    };
    fs.mkdirSync(path.join(dir, 'data'));
    const p = spawnCli(['dev', '--json', '--seed', '9'], { cwd: dir, env });
    running.push(p);
    const ready = JSON.parse(await p.waitForLine((l) => l.startsWith('{"type":"ready"')));
    expect(ready.configFile).toBe(config);
    expect(ready.baseUrl).toBe('http://svc:4747');
    expect(fs.existsSync(env.SVC_DB)).toBe(true);
    const local = `http://127.0.0.1:${ready.address.split(':').pop()}`;
    const clock = await request(local, 'GET', '/__emulator/clock');
    expect(clock.body.now).toBe('2030-01-01T00:00:00.000Z');
    for (const host of ['svc:4747', 'app', 'from-file.lan']) {
      expect((await request(local, 'GET', '/__emulator/health', { headers: { host } })).status, host).toBe(200);
    }
    // --seed 9 over SVC_SEED=5 over the file's 1: the keys are those seed 9 derives.
    const seeded = await runCli(['exec', '--seed', '9', '--', process.execPath, '-e', 'console.log(process.env.SVC_PARTNER_KEY)'], { cwd: dir });
    expect(seeded.stdout.trim()).toBe(ready.test.partnerKey);
  });

  it('bound beyond loopback with the control plane exposed and no token, it says to publish on 127.0.0.1; with a token it does not', async () => {
    const dir = tempDir();
    const linesOf = async (env: Record<string, string>) => {
      const p = spawnCli(['dev', '--json', '--port', '0', '--memory'], { cwd: dir, env: { SVC_HOST: '0.0.0.0', SVC_EXPOSE_CONTROL_PLANE: '1', ...env } });
      running.push(p);
      const ready = JSON.parse(await p.waitForLine((l) => l.startsWith('{"type":"ready"')));
      // The warnings come right after the ready line; a request's line comes after them.
      await request(`http://127.0.0.1:${ready.address.split(':').pop()}`, 'GET', '/__emulator/health');
      await p.waitForLine((l) => l.startsWith('{"type":"request"'));
      return p.lines.filter((l) => l.startsWith('{"type":"warning"')).map((l) => JSON.parse(l).message as string);
    };
    const open = await linesOf({});
    expect(open.some((m) => m.includes('publish the port on 127.0.0.1 only'))).toBe(true);
    const guarded = await linesOf({ SVC_CONTROL_TOKEN: 'tok-0123456789abcdef' });
    expect(guarded.some((m) => m.includes('publish the port'))).toBe(false);
    expect(guarded.some((m) => m.includes('reachable from other machines'))).toBe(true);
  });

  it('a bad value is a usage error naming the variable, exit 2, nothing created', async () => {
    const dir = tempDir();
    const res = await runCli(['dev', '--json'], { cwd: dir, env: { SVC_PORT: 'http', SVC_DB: path.join(dir, 'x.sqlite') } });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain('SVC_PORT must be a whole number');
    expect(fs.existsSync(path.join(dir, 'x.sqlite'))).toBe(false);
  });

  it('svc exec keeps its own defaults whatever SVC_PORT and SVC_DB say', async () => {
    const dir = tempDir();
    const res = await runCli(['exec', '--', process.execPath, '-e', 'console.log(process.env.SVC_BASE_URL)'], {
      cwd: dir,
      env: { SVC_PORT: '1', SVC_DB: path.join(dir, 'x.sqlite') },
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).not.toMatch(/:1$/);
    expect(fs.existsSync(path.join(dir, 'x.sqlite'))).toBe(false);
  });
});
