import fs from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, runInProcess, spawnCli } from '../helpers/cli.js';
import { request, startTestEmulator } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `svc exec [svc dev options] -- <command> [args…]` (CONTRACT §9), spawned from the build: the
 * command's environment, the emulator answering with those keys while it runs (and gone after), exit
 * codes, signals passed on, the fixtures' output file, and a start that fails before the command runs.
 */
const each = perTest();
const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '', SVC_FIXTURES_OUTPUT: '' };
const exec = (args: string[], cwd: string, env: Record<string, string> = {}) => runCli(['exec', ...args], { cwd, env: { ...NO_TARGET, ...env } });
/** `node --input-type=module -e <code>`: the command, with top-level await. */
const nodeModule = (code: string) => [process.execPath, '--input-type=module', '-e', code];
const KEY = /^(pt_test_|test_|pt_live_|live_)[0-9A-Za-z]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether anything still answers at `baseUrl`. */
async function answers(baseUrl: string): Promise<boolean> {
  try {
    await fetch(`${baseUrl}/__emulator/health`);
    return true;
  } catch {
    return false;
  }
}

describe('the command, its environment and the emulator', () => {
  // Reports the SVC_* variables and one inherited one, and what the emulator answers with each key.
  const REPORT = `
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('SVC_') || k === 'EXEC_TEST_INHERITED'));
    const get = async (path, key) => (await fetch(env.SVC_BASE_URL + path, { headers: { authorization: 'Bearer ' + key } })).status;
    const statuses = {
      testMerchant: await get('/v1/invoices', env.SVC_MERCHANT_KEY),
      testPartner: await get('/v1/partner/merchants/' + env.SVC_MERCHANT_ID, env.SVC_PARTNER_KEY),
      liveMerchant: await get('/v1/invoices', env.SVC_LIVE_MERCHANT_KEY),
      livePartner: await get('/v1/partner/merchants/' + env.SVC_LIVE_MERCHANT_ID, env.SVC_LIVE_PARTNER_KEY),
      testPartnerOnLiveMerchant: await get('/v1/partner/merchants/' + env.SVC_LIVE_MERCHANT_ID, env.SVC_PARTNER_KEY),
    };
    console.log(JSON.stringify({ env, statuses, cwd: process.cwd() }));`;

  it('sets the SVC_* variables (the rest inherited); the emulator answers with those keys while the command runs, and is gone after', async () => {
    const dir = tempDir();
    const r = await exec(['--', ...nodeModule(REPORT)], dir, { EXEC_TEST_INHERITED: 'kept', SVC_FIXTURES_OUTPUT: '/stale/from/another/run.json' });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    // stdout is the command's, and only the command's.
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out.env).sort()).toEqual(
      [
        'EXEC_TEST_INHERITED',
        'SVC_BASE_URL',
        'SVC_LIVE_MERCHANT_ID',
        'SVC_LIVE_MERCHANT_KEY',
        'SVC_LIVE_PARTNER_KEY',
        'SVC_MERCHANT_ID',
        'SVC_MERCHANT_KEY',
        'SVC_PARTNER_KEY',
        // NO_TARGET's empty SVC_PROFILE is inherited like any variable; SVC_FIXTURES_OUTPUT is not (no --fixtures).
        'SVC_PROFILE',
      ].sort(),
    );
    expect(out.env.EXEC_TEST_INHERITED).toBe('kept');
    expect(out.env.SVC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(out.env.SVC_BASE_URL).not.toBe('http://127.0.0.1:4747'); // a free port, not svc dev's default
    expect(out.env.SVC_PARTNER_KEY).toMatch(/^pt_test_/);
    expect(out.env.SVC_MERCHANT_KEY).toMatch(/^test_/);
    expect(out.env.SVC_LIVE_PARTNER_KEY).toMatch(/^pt_live_/);
    expect(out.env.SVC_LIVE_MERCHANT_KEY).toMatch(/^live_/);
    for (const k of ['SVC_PARTNER_KEY', 'SVC_MERCHANT_KEY', 'SVC_LIVE_PARTNER_KEY', 'SVC_LIVE_MERCHANT_KEY']) expect(out.env[k]).toMatch(KEY);
    for (const k of ['SVC_MERCHANT_ID', 'SVC_LIVE_MERCHANT_ID']) expect(out.env[k]).toMatch(UUID);
    expect(out.statuses).toEqual({ testMerchant: 200, testPartner: 200, liveMerchant: 200, livePartner: 200, testPartnerOnLiveMerchant: 404 });
    expect(fs.realpathSync(out.cwd)).toBe(fs.realpathSync(dir));
    expect(await answers(out.env.SVC_BASE_URL)).toBe(false);
    // In memory, and no .svc/dev.json: nothing left in the folder.
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('exits with the command’s exit code: 0 and 3', async () => {
    const dir = tempDir();
    expect(await exec(['--', process.execPath, '-e', '0'], dir)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await exec(['--', process.execPath, '-e', 'process.exit(3)'], dir)).toEqual({ code: 3, stdout: '', stderr: '' });
  });

  it('the command reads svc’s stdin (nothing of svc reads it first)', async () => {
    const r = await runCli(['exec', '--', process.execPath, '-e', 'process.stdin.pipe(process.stdout)'], {
      cwd: tempDir(),
      env: NO_TARGET,
      input: 'line one\nline two\n',
    });
    expect(r).toEqual({ code: 0, stdout: 'line one\nline two\n', stderr: '' });
  });

  it('never touches the .svc/dev.json of a svc dev running in the folder; svc commands inside exec use exec’s emulator (from the environment)', async () => {
    const dir = tempDir();
    const dev = each.track(spawnCli(['dev', '--port', '0', '--memory', '--json'], { cwd: dir, env: NO_TARGET }));
    const ready = JSON.parse(await dev.waitForLine((l) => l.includes('"type":"ready"')));
    const stateFile = path.join(dir, '.svc', 'dev.json');
    const before = fs.readFileSync(stateFile, 'utf8');

    const r = await exec(['--', process.execPath, BIN, 'invoices', 'create', '--amount', '4.20', '--json'], dir);
    expect(r.code, r.stderr).toBe(0);
    const invoice = JSON.parse(r.stdout);
    expect(invoice).toMatchObject({ amount: '4.20', status: 'CREATED' });
    expect(fs.readFileSync(stateFile, 'utf8')).toBe(before);
    // Created on exec's emulator, not on the svc dev next to it.
    expect(invoice.checkoutUrl.startsWith(ready.baseUrl)).toBe(false);
    const onDev = await request(ready.baseUrl, 'GET', `/v1/invoices/${invoice.id}`, { key: ready.test.merchantKey });
    expect(onDev.status).toBe(404);
    expect(await dev.stop('SIGTERM')).toBe(0);
  });
});

describe('signals', () => {
  it('SIGINT to svc alone reaches the command, which it kills: exit 130, as a shell reports it; nothing is left running', async () => {
    const dir = tempDir();
    const code = `console.log(JSON.stringify({ pid: process.pid, url: process.env.SVC_BASE_URL })); setInterval(() => {}, 1000);`;
    const cli = each.track(spawnCli(['exec', '--', process.execPath, '-e', code], { cwd: dir, env: NO_TARGET }));
    const child = JSON.parse(await cli.waitForLine((l) => l.startsWith('{')));
    expect(await answers(child.url)).toBe(true);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(130);
    expect(() => process.kill(child.pid, 0)).toThrow(/ESRCH/);
    expect(await answers(child.url)).toBe(false);
    expect(cli.stderr()).toBe('');
  });

  it('every SIGTERM is passed on and svc waits: the command stops in its own time, still served, and its exit code is svc’s', async () => {
    const dir = tempDir();
    const code = `
      let terms = 0;
      process.on('SIGTERM', () => {
        console.log('term ' + ++terms);
        if (terms === 2) setTimeout(async () => {
          const res = await fetch(process.env.SVC_BASE_URL + '/v1/invoices', { headers: { authorization: 'Bearer ' + process.env.SVC_MERCHANT_KEY } });
          console.log('served ' + res.status);
          process.exit(0);
        }, 300);
      });
      console.log('ready');
      setInterval(() => {}, 1000);`;
    const cli = each.track(spawnCli(['exec', '--', ...nodeModule(code)], { cwd: dir, env: NO_TARGET }));
    await cli.waitForLine((l) => l === 'ready');
    cli.child.kill('SIGTERM');
    await cli.waitForLine((l) => l === 'term 1');
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.lines).toEqual(['ready', 'term 1', 'term 2', 'served 200']);
  });

  // Issue 22: SIGQUIT and SIGUSR2 ended svc by their default action and orphaned the command; SIGUSR1
  // opened Node's inspector in svc (127.0.0.1:9229). Each is passed on; svc stays and serves.
  it('SIGQUIT, SIGUSR1 and SIGUSR2 are passed on to the command; svc lives on, serving, and opens no inspector', async () => {
    const dir = tempDir();
    const code = `
      const got = [];
      for (const s of ['SIGQUIT', 'SIGUSR1', 'SIGUSR2']) process.on(s, async () => {
        got.push(s);
        const res = await fetch(process.env.SVC_BASE_URL + '/__emulator/health');
        console.log(s + ' ' + res.status);
        if (got.length === 3) process.exit(7);
      });
      console.log('ready');
      setInterval(() => {}, 1000);`;
    const cli = each.track(spawnCli(['exec', '--', ...nodeModule(code)], { cwd: dir, env: NO_TARGET }));
    await cli.waitForLine((l) => l === 'ready');
    for (const signal of ['SIGQUIT', 'SIGUSR1', 'SIGUSR2'] as const) {
      cli.child.kill(signal);
      await cli.waitForLine((l) => l === `${signal} 200`, 10_000);
    }
    expect(await cli.exited).toBe(7);
    expect(cli.lines).toEqual(['ready', 'SIGQUIT 200', 'SIGUSR1 200', 'SIGUSR2 200']);
    expect(cli.stderr()).not.toContain('Debugger listening');
    expect(cli.stderr()).toBe('');
  });

  it('a command killed by SIGTERM: exit 143', async () => {
    const dir = tempDir();
    const cli = each.track(spawnCli(['exec', '--', process.execPath, '-e', `console.log('ready'); setInterval(() => {}, 1000)`], { cwd: dir, env: NO_TARGET }));
    await cli.waitForLine((l) => l === 'ready');
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(143);
  });
});

describe('--fixtures', () => {
  const TEMPLATE = path.join(ROOT, 'templates', 'svc.fixtures.yaml');

  it('applies the file before the command runs; SVC_FIXTURES_OUTPUT names a file holding what `svc fixtures apply --json` prints, removed afterwards', async () => {
    const dir = tempDir();
    fs.copyFileSync(TEMPLATE, path.join(dir, 'svc.fixtures.yaml'));
    const code = `
      import fs from 'node:fs';
      const file = process.env.SVC_FIXTURES_OUTPUT;
      const text = fs.readFileSync(file, 'utf8');
      const doc = JSON.parse(text);
      const res = await fetch(process.env.SVC_BASE_URL + '/v1/partner/invoices/' + doc['small-invoice'].id, { headers: { authorization: 'Bearer ' + process.env.SVC_PARTNER_KEY } });
      console.log(JSON.stringify({ file, text, mode: fs.statSync(file).mode & 0o777, status: (await res.json()).status }));`;
    const r = await exec(['--fixtures', 'svc.fixtures.yaml', '--', ...nodeModule(code)], dir);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const out = JSON.parse(r.stdout);
    const doc = JSON.parse(out.text);
    expect(out.text).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    expect(out.mode).toBe(0o600);
    expect(out.status).toBe('PAID');
    expect(fs.existsSync(out.file)).toBe(false);

    // The same document as `svc fixtures apply --json` of the same file (ids aside).
    const emu = await startTestEmulator();
    each.defer(() => emu.stop());
    const applied = await runInProcess(['fixtures', 'apply', 'svc.fixtures.yaml', '--json'], {
      cwd: dir,
      env: { ...NO_TARGET, SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey, SVC_MERCHANT_KEY: emu.keys.test.merchantKey },
    });
    const expected = JSON.parse(applied.stdout);
    expect(Object.keys(doc)).toEqual(Object.keys(expected));
    for (const step of Object.keys(expected)) expect(Object.keys(doc[step]).sort(), step).toEqual(Object.keys(expected[step]).sort());
  });

  it('a step the emulator refuses: exit 1 with the fixtures error, and the command never runs', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ steps: [{ name: 'bad', method: 'POST', path: '/v1/invoices', body: { amount: 'ten' } }] }));
    const r = await exec(['--fixtures', 'bad.json', '--', process.execPath, '-e', `require('fs').writeFileSync('ran', '')`], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error bad\.json: step 1 of 1 "bad" failed\n/);
    expect(r.stderr).toContain('400 validation_failed (amount)');
    expect(fs.existsSync(path.join(dir, 'ran'))).toBe(false);
  });
});

describe('what fails before or instead of the command', () => {
  it('an emulator that cannot start (port in use): exit 1, one line, the command never runs', async () => {
    const dir = tempDir();
    // A program that holds the port and reads what it is sent (svc asks whether it is an emulator).
    const blocker: Server = createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    each.defer(() => new Promise((resolve) => blocker.close(resolve)));
    const port = (blocker.address() as { port: number }).port;
    const r = await exec(['--port', String(port), '--', process.execPath, '-e', `require('fs').writeFileSync('ran', '')`], dir);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `error port ${port} is already in use on 127.0.0.1; stop what uses it, or start with --port 0 to pick a free port\n`,
    });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('SIGTERM while the emulator starts: it is stopped, the command never runs, exit 143', async () => {
    const dir = tempDir();
    const controller = new AbortController();
    // What main.ts does on a signal before the command runs (in-process: there is no main here).
    setImmediate(() => controller.abort('SIGTERM'));
    const r = await runInProcess(['exec', '--', process.execPath, '-e', `require('fs').writeFileSync('ran', '')`], {
      cwd: dir,
      env: NO_TARGET,
      signal: controller.signal,
    });
    expect(r).toEqual({ code: 143, stdout: '', stderr: '' });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a command that does not exist: exit 127, one line; one that cannot be executed: 126', async () => {
    const dir = tempDir();
    expect(await exec(['--', 'svc-exec-no-such-command', '--flag'], dir)).toEqual({
      code: 127,
      stdout: '',
      stderr: 'error command not found: svc-exec-no-such-command\n',
    });
    fs.writeFileSync(path.join(dir, 'script.sh'), '#!/bin/sh\necho hi\n', { mode: 0o644 });
    expect(await exec(['--', './script.sh'], dir)).toEqual({ code: 126, stdout: '', stderr: 'error ./script.sh: cannot execute (permission denied)\n' });
  });

  it('without -- before the command: a usage error (exit 2), nothing starts', async () => {
    const dir = tempDir();
    const r = await runInProcess(['exec', 'node', 'server.js'], { cwd: dir, env: NO_TARGET });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error put -- before the command, so that its options are not taken for svc's: svc exec [options] -- node server.js\n(add --help for usage)\n",
    );
  });

  it('an option of the command without -- (svc exec node --test): says to put -- first, not "Did you mean --host?" (issue 24, spawned)', async () => {
    const dir = tempDir();
    const r = await runCli(['exec', 'node', '--test', 'test/'], { cwd: dir, env: NO_TARGET });
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe(
      "error unknown option '--test' after the command: put -- before the command, so that its options are not taken for svc's: svc exec [options] -- node --test test/\n(add --help for usage)\n",
    );
    const json = await runCli(['exec', '--json', 'node', '--test'], { cwd: dir, env: NO_TARGET });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'usage_error', message: expect.stringContaining('put -- before the command') });
    // A typo of svc's own option, before any command word, keeps commander's suggestion.
    const typo = await runCli(['exec', '--hots', 'x', '--', 'node'], { cwd: dir, env: NO_TARGET });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown option '--hots'");
    expect(typo.stderr).toContain('--host');
  });
});

describe("the emulator's output", () => {
  const CALL = `await fetch(process.env.SVC_BASE_URL + '/v1/invoices', { headers: { authorization: 'Bearer ' + process.env.SVC_MERCHANT_KEY } }); console.log(process.env.SVC_BASE_URL);`;

  it('--verbose: its request lines on stderr, marked [svc]; --log <file>: its events as NDJSON, ready first, stopped last', async () => {
    const dir = tempDir();
    const r = await exec(['--verbose', '--log', 'svc.ndjson', '--', ...nodeModule(CALL)], dir);
    expect(r.code, r.stderr).toBe(0);
    const baseUrl = r.stdout.trim();
    expect(r.stderr).toMatch(/^\[svc\] \d\d:\d\d:\d\d GET \/v1\/invoices 200 \S+ ms\n$/);
    const file = path.join(dir, 'svc.ndjson');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const events = fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events[0]).toMatchObject({ type: 'ready', baseUrl, configFile: null });
    expect(events.some((e) => e.type === 'request' && e.method === 'GET' && e.path === '/v1/invoices' && e.status === 200)).toBe(true);
    expect(events.at(-1)).toEqual({ type: 'stopped', exitCode: 0 });
  });

  it('--log into an existing file (0644) makes it 0600 before the keys go in (issue 22)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'svc.ndjson');
    fs.writeFileSync(file, 'old\n', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const r = await exec(['--log', 'svc.ndjson', '--', process.execPath, '-e', '0'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^\{"type":"ready"/);
  });

  it('a --log that cannot be written: exit 1, one line, nothing starts', async () => {
    const dir = tempDir();
    const r = await exec(
      ['--log', path.join(dir, 'no', 'such', 'folder', 'log.ndjson'), '--', process.execPath, '-e', `require('fs').writeFileSync('ran', '')`],
      dir,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error --log .*log\.ndjson: cannot write it \(ENOENT\)\n$/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
