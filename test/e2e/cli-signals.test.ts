import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, spawnCli } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * One cancellation signal for the CLI (issue 11): main.ts turns SIGINT/SIGTERM into ctx.signal; the
 * commands that stop cleanly on it (dev, listen, tail) do, with their own exit code; anything else,
 * or a second Ctrl-C, ends at once with 130. Only main.ts exits.
 */
const each = perTest();
const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };

describe('svc dev and the stop signal', () => {
  it('an abort during start-up stops what started: exit 130, no ready line, another process’s .svc/dev.json untouched', async () => {
    const dir = tempDir();
    const other = { baseUrl: 'http://127.0.0.1:1', pid: process.ppid, startedAt: '2024-01-01T00:00:00.000Z', database: 'x', keys: {} };
    fs.mkdirSync(path.join(dir, '.svc'));
    const stateFile = path.join(dir, '.svc', 'dev.json');
    fs.writeFileSync(stateFile, JSON.stringify(other));
    const controller = new AbortController();
    // Aborted once start-up is under way (config, imports, the emulator starting), before it is ready.
    setImmediate(() => controller.abort('SIGINT'));
    const r = await runInProcess(['dev', '--port', '0', '--memory', '--json'], { cwd: dir, env: NO_TARGET, signal: controller.signal });
    expect(r.code).toBe(130);
    expect(r.stdout).not.toContain('"type":"ready"');
    expect(JSON.parse(fs.readFileSync(stateFile, 'utf8'))).toEqual(other);
  });

  it('Ctrl-C stops cleanly (exit 0, state file removed); a second Ctrl-C while it stops means now (exit 130)', async () => {
    const rx = await each.receiver();
    rx.respond('hang');
    const dir = tempDir();
    const dev = each.track(spawnCli(['dev', '--port', '0', '--memory'], { cwd: dir, env: NO_TARGET }));
    const baseUrl = /http:\/\/127\.0\.0\.1:\d+/.exec(await dev.waitForLine((l) => l.includes('Base URL')))![0];
    await dev.waitForLine((l) => l.includes('Ctrl-C'));
    const out = dev.lines.join('\n');
    const partnerKey = /pt_test_[0-9A-Za-z]{32}/.exec(out)![0];
    const merchantKey = /Test merchant key\s+(test_[0-9A-Za-z]{32})/.exec(out)![1]!;
    await request(baseUrl, 'PUT', '/v1/partner/webhook', { key: partnerKey, body: { url: `${rx.url}/hooks`, secret: 'whsec_signal_test_0001' } });
    await request(baseUrl, 'POST', '/v1/invoices', { key: merchantKey, body: { amount: '1.00' }, idempotencyKey: ikey() });
    // A delivery attempt hangs at the receiver: a clean stop waits for it (up to a second).
    await rx.waitFor(1);
    dev.child.kill('SIGINT');
    await expect.poll(() => dev.stderr(), { timeout: 5000 }).toContain('Stopping (SIGINT)…');
    dev.child.kill('SIGINT');
    expect(await dev.exited).toBe(130);

    const again = each.track(spawnCli(['dev', '--port', '0', '--memory', '--json'], { cwd: dir, env: NO_TARGET }));
    await again.waitForLine((l) => l.includes('"type":"ready"'));
    expect(fs.existsSync(path.join(dir, '.svc', 'dev.json'))).toBe(true);
    expect(await again.stop('SIGTERM')).toBe(0);
    expect(again.lines.at(-1)).toBe('{"type":"stopped","signal":"SIGTERM"}');
    expect(fs.existsSync(path.join(dir, '.svc', 'dev.json'))).toBe(false);
  });
});

describe('commands that do not stop on their own', () => {
  it('exit 130 at once on Ctrl-C, even while a request is waiting for its answer', async () => {
    // A service that accepts connections and never answers.
    const sockets: net.Socket[] = [];
    const server = net.createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    each.defer(async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const cli = each.track(
      spawnCli(['invoices', 'list'], { cwd: tempDir(), env: { ...NO_TARGET, SVC_BASE_URL: url, SVC_PARTNER_KEY: `pt_test_${'a'.repeat(32)}` } }),
    );
    await expect.poll(() => sockets.length, { timeout: 10_000 }).toBe(1);
    // The server never answers: only the SIGINT can end the command (no wall-clock bound, issue 23).
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(130);
    expect(cli.stderr()).toBe('');
  });
});
