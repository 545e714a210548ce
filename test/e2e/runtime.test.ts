/**
 * CONTRACT §11 as a user meets it: an unsupported Node gets one line; a bug in svc exits 4 with one
 * line asking to report it, and under SVC_DEBUG=1 a stack whose frames name src/ files (the built
 * chunks' source maps); the compile cache lives in the user's cache folder, and a read-only one costs
 * nothing but the speed-up.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('svc-runtime-');
// A "bug": every HTTP request svc makes throws a TypeError from inside node:http, as a programming
// error in svc's client would. Loaded with --import, before svc, into the CLI's own process.
const BUG = path.join(dir, 'bug.mjs');
fs.writeFileSync(BUG, "import http from 'node:http';\nhttp.request = () => { throw new TypeError('deliberate bug for the test'); };\n");
const withBug = (extra: NodeJS.ProcessEnv = {}) => ({
  SVC_BASE_URL: 'http://127.0.0.1:9',
  SVC_MERCHANT_KEY: 'test_0000000000000000000000000000000',
  NODE_OPTIONS: `--import ${pathToFileURL(BUG).href}`,
  ...extra,
});

describe('a bug in svc', () => {
  it('exits 4 with one line asking to report it, and no stack', async () => {
    const r = await runCli(['invoices', 'list'], { cwd: dir, env: withBug() });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^internal error deliberate bug for the test\nThis is a bug in svc [\d.]+: please report it/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('with SVC_DEBUG=1, prints the stack with src/ paths from the source maps', async () => {
    const r = await runCli(['invoices', 'list'], { cwd: dir, env: withBug({ SVC_DEBUG: '1' }) });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/\n\s+at .*[/\\]src[/\\]client[/\\]http\.ts:\d+:\d+/);
    expect(r.stderr).not.toMatch(/dist[/\\]chunks/);
  });

  it('--json keeps one JSON document on stdout, code internal_error', async () => {
    const r = await runCli(['invoices', 'list', '--json'], { cwd: dir, env: withBug() });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'internal_error', message: 'deliberate bug for the test' } });
  });
});

describe("Node's compile cache", () => {
  it('is written under $XDG_CACHE_HOME/svc/compile-cache, one folder per Node version', async () => {
    const cache = path.join(dir, 'xdg-cache');
    const r = await runCli(['--help'], { cwd: dir, env: { XDG_CACHE_HOME: cache, NODE_COMPILE_CACHE: '' } });
    expect(r.code).toBe(0);
    const versions = fs.readdirSync(path.join(cache, 'svc', 'compile-cache'));
    expect(versions.some((v) => v.startsWith(`v${process.versions.node}-`))).toBe(true);
  });

  it('a cache folder that cannot be written costs nothing but the speed-up', async () => {
    const cache = path.join(dir, 'read-only-cache');
    fs.mkdirSync(cache);
    fs.writeFileSync(path.join(cache, 'svc'), 'a file where the folder would go');
    const r = await runCli(['--help'], { cwd: dir, env: { XDG_CACHE_HOME: cache, NODE_COMPILE_CACHE: '' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: svc/);
    expect(r.stderr).toBe('');
  });
});

describe('svc --version', () => {
  // Answered by bin/svc.js from package.json alone, before dist/ loads.
  it.each(['--version', '-V'])("%s prints package.json's version and nothing else", async (flag) => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const r = await runCli([flag], { cwd: dir });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

// The machine's own Node, when it is older than svc supports (Node 20 on this project's machines).
const OLD_NODE = process.env.SVC_OLD_NODE ?? '/usr/bin/node';
const oldVersion = fs.existsSync(OLD_NODE) ? spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim() : '';
const isOld = /^(\d+)\./.test(oldVersion) && (Number(oldVersion.split('.')[0]) < 22 || (oldVersion.startsWith('22.') && Number(oldVersion.split('.')[1]) < 12));

describe.skipIf(!isOld)(`an unsupported Node (${OLD_NODE} ${oldVersion || 'absent'})`, () => {
  // --version has a path of its own in bin/svc.js (answered before dist/ loads): it refuses the same way.
  it.each([[['dev', '--memory']], [['--version']], [['-V']]])('svc %j: one line naming the version found and the version needed, exit 1', (args) => {
    const r = spawnSync(OLD_NODE, [BIN, ...args], { cwd: dir, encoding: 'utf8' });
    expect({ code: r.status, stderr: r.stderr, stdout: r.stdout }).toEqual({
      code: 1,
      stderr: `svc needs Node.js 22.12 or newer (22, 24 or 26); this is Node.js ${oldVersion}.\n`,
      stdout: '',
    });
  });

  it('the package import: the same line, exit 1', () => {
    const r = spawnSync(OLD_NODE, ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href)});`], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect({ code: r.status, stderr: r.stderr }).toEqual({
      code: 1,
      stderr: `svc needs Node.js 22.12 or newer (22, 24 or 26); this is Node.js ${oldVersion}.\n`,
    });
  });
});
