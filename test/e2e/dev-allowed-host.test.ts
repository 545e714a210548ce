/**
 * `svc dev --allowed-host` (CONTRACT §8 "Allowed hosts"): repeatable, added to the config file's
 * `allowedHosts`; a value that is not a host is a usage error naming the flag.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type LiveCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const running: LiveCli[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});

function statusFor(baseUrl: string, host: string): Promise<number> {
  const url = new URL('/__emulator/health', baseUrl);
  return new Promise((resolve, reject) => {
    http
      .get({ host: url.hostname, port: url.port, path: url.pathname, headers: { host }, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

describe('svc dev --allowed-host', () => {
  it('serves the named hosts besides those of the config file, and refuses others', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'svc.config.json'), JSON.stringify({ allowedHosts: ['from-file.lan'] }));
    const p = spawnCli(['dev', '--port', '0', '--memory', '--json', '--allowed-host', 'svc', '--allowed-host', '.box.test'], { cwd: dir });
    running.push(p);
    const ready = JSON.parse(await p.waitForLine((l) => l.startsWith('{"type":"ready"')));
    for (const host of ['svc:4747', 'a.box.test', 'from-file.lan', 'localhost']) expect(await statusFor(ready.baseUrl, host), host).toBe(200);
    expect(await statusFor(ready.baseUrl, 'evil.example')).toBe(403);
  });

  it('a value that is not a host is a usage error naming the flag', async () => {
    const result = await runCli(['dev', '--port', '0', '--memory', '--allowed-host', 'http://svc:4747/'], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--allowed-host');
    expect(result.stderr).toContain('is not a host name or address');
  });
});
