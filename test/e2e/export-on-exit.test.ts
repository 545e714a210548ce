import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type LiveCli } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `svc dev --export-on-exit <file>` (issue 24): on a clean stop the state is written to the file as
 * an exported snapshot, atomically, so `--memory --snapshot state.sqlite --export-on-exit
 * state.sqlite` keeps a throwaway emulator's state from one session to the next.
 */
const running: LiveCli[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});

const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };

async function dev(args: string[], cwd: string) {
  const p = spawnCli(['dev', '--port', '0', '--memory', '--json', ...args], { cwd, env: NO_TARGET });
  running.push(p);
  const ready = JSON.parse(await p.waitForLine((l) => l.includes('"type":"ready"')));
  return { p, ready };
}
const SESSION = ['--snapshot', 'state.sqlite', '--export-on-exit', 'state.sqlite'];

describe('svc dev --export-on-exit', () => {
  it('keeps an in-memory emulator state between sessions: written on Ctrl-C (mode 0600, no partial left), read back by --snapshot', async () => {
    const dir = tempDir();
    // First session: state.sqlite does not exist yet, so it starts empty.
    const first = await dev(SESSION, dir);
    const created = await request(first.ready.baseUrl, 'POST', '/v1/invoices', {
      key: first.ready.test.merchantKey,
      body: { amount: '7.00' },
      idempotencyKey: ikey(),
    });
    expect(created.status).toBe(201);
    expect(await first.p.stop('SIGINT')).toBe(0);
    const file = path.join(dir, 'state.sqlite');
    expect(first.p.lines.map((l) => JSON.parse(l)).at(-1)).toEqual({ type: 'stopped', signal: 'SIGINT', exported: file });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);

    // Second session, same command: the invoice and the keys are back; SIGTERM exports again.
    const second = await dev(SESSION, dir);
    expect(second.ready.test).toEqual(first.ready.test);
    const read = await request(second.ready.baseUrl, 'GET', `/v1/invoices/${created.body.id}`, { key: second.ready.test.merchantKey });
    expect(read.status).toBe(200);
    expect(await second.p.stop('SIGTERM')).toBe(0);
    const third = await dev(SESSION, dir);
    expect((await request(third.ready.baseUrl, 'GET', `/v1/invoices/${created.body.id}`, { key: third.ready.test.merchantKey })).status).toBe(200);
  });

  it('human mode says where it exported, on stderr', async () => {
    const dir = tempDir();
    const p = spawnCli(['dev', '--port', '0', '--memory', '--export-on-exit', 'out.sqlite'], { cwd: dir, env: NO_TARGET });
    running.push(p);
    await p.waitForLine((l) => l.includes('Press Ctrl-C to stop'));
    expect(await p.stop('SIGINT')).toBe(0);
    expect(p.stderr()).toContain(`Exported the state to ${path.join(dir, 'out.sqlite')}\n`);
    expect(fs.existsSync(path.join(dir, 'out.sqlite'))).toBe(true);
  });

  it('a folder that does not exist: a usage error naming --export-on-exit before anything starts', async () => {
    const dir = tempDir();
    const r = await runCli(['dev', '--port', '0', '--memory', '--export-on-exit', 'missing/state.sqlite'], { cwd: dir, env: NO_TARGET });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--export-on-exit: the folder');
    expect(fs.existsSync(path.join(dir, '.svc', 'dev.json'))).toBe(false);
  });

  it('a target that cannot be replaced (a folder of that name): exit 1 naming the file, the folder untouched, no partial left', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'state.sqlite'));
    const { p } = await dev(['--export-on-exit', 'state.sqlite'], dir);
    expect(await p.stop('SIGINT')).toBe(1);
    expect(p.stderr()).toContain(`cannot export the state to ${path.join(dir, 'state.sqlite')}`);
    expect(fs.statSync(path.join(dir, 'state.sqlite')).isDirectory()).toBe(true);
    expect(fs.readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('svc exec --export-on-exit: the state the command left is in the file once it ends', async () => {
    const dir = tempDir();
    const script = `const r = await fetch(process.env.SVC_BASE_URL + '/v1/invoices', { method: 'POST', headers: { authorization: 'Bearer ' + process.env.SVC_MERCHANT_KEY, 'content-type': 'application/json', 'idempotency-key': 'k1' }, body: JSON.stringify({ amount: '3.00' }) }); console.log((await r.json()).id);`;
    const r = await runCli(['exec', '--export-on-exit', 'ci.sqlite', '--', process.execPath, '--input-type=module', '-e', script], {
      cwd: dir,
      env: NO_TARGET,
    });
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    const { ready } = await dev(['--snapshot', 'ci.sqlite'], dir);
    expect((await request(ready.baseUrl, 'GET', `/v1/invoices/${id}`, { key: ready.test.merchantKey })).status).toBe(200);
  });
});
