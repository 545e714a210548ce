/**
 * Where commands look for `.svc/dev.json` (issue 22; CONTRACT §8): from the current folder up to the
 * project root (the nearest folder holding package.json or .git), never above it, as for config files;
 * and a file whose pid is not a live `svc dev` is stale and ignored. Before, a `svc dev` left running in
 * /tmp or ~ silently became the target of every `svc` command below it, and a stale file whose pid had
 * been reused by another program was still followed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveCli, runCli, spawnCli } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };

let outer: string;
let dev: LiveCli;
let emu: TestEmulator;
beforeAll(async () => {
  outer = tempDir('svc-bounds-');
  dev = spawnCli(['dev', '--port', '0', '--json', '--memory'], { cwd: outer, env: NO_TARGET });
  await dev.waitForLine((l) => l.includes('"type":"ready"'), 20_000);
  emu = await startTestEmulator();
});
afterAll(async () => {
  await dev?.stop('SIGINT');
  await emu?.stop();
});

/** A project folder (it holds package.json) at `dir`, with a subfolder to run commands from. */
function project(dir: string): string {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"app","private":true}\n');
  return path.join(dir, 'src');
}

describe('.svc/dev.json above the project root', () => {
  it('is ignored below the project root, and used where it is', async () => {
    // Where it was written, the running svc dev is the target: the file is good.
    const here = await runCli(['status', '--json'], { cwd: outer, env: NO_TARGET });
    expect(here.code, here.stderr).toBe(0);
    expect(JSON.parse(here.stdout)).toMatchObject({ baseUrlSource: 'local emulator', localEmulator: { running: true, inUse: true } });

    const inside = project(path.join(outer, 'app'));
    const r = await runCli(['invoices', 'list'], { cwd: inside, env: NO_TARGET });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
    expect(r.stderr).toContain('no service to talk to');
    const s = await runCli(['status', '--json'], { cwd: inside, env: NO_TARGET });
    expect(JSON.parse(s.stdout)).toMatchObject({ baseUrl: null, localEmulator: null });
  });
});

describe('a stale .svc/dev.json', () => {
  const write = (dir: string, pid: number) => {
    fs.mkdirSync(path.join(dir, '.svc'), { recursive: true });
    const state = { baseUrl: emu.url, pid, startedAt: '2030-01-01T00:00:00.000Z', database: ':memory:', keys: emu.keys };
    fs.writeFileSync(path.join(dir, '.svc', 'dev.json'), JSON.stringify(state));
  };

  it('whose pid is another live program (a reused pid) is ignored; status shows it not running', async () => {
    const dir = tempDir('svc-stale-live-');
    project(dir);
    write(dir, process.pid); // this test runner: alive, not svc dev
    const r = await runCli(['invoices', 'list'], { cwd: dir, env: NO_TARGET });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('no service to talk to');
    const s = await runCli(['status', '--json'], { cwd: dir, env: NO_TARGET });
    expect(JSON.parse(s.stdout)).toMatchObject({ baseUrl: null, localEmulator: { running: false, inUse: false } });
  });

  it('whose pid is gone is ignored', async () => {
    const dir = tempDir('svc-stale-dead-');
    project(dir);
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    write(dir, gone);
    const r = await runCli(['invoices', 'list'], { cwd: dir, env: NO_TARGET });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('no service to talk to');
  });
});
