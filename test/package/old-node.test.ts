/**
 * CONTRACT §11 at install time: on a Node older than svc supports, `npm ci` in a clone and installing
 * the packed package in a project end with the one line naming the Node found and the one needed,
 * before anything of svc is built or loaded (bin/check-node.cjs, the `preinstall` script), exit
 * non-zero. Before it, `npm ci` on Node 20 ran the build, which loads better-sqlite3 13 and died in a
 * segmentation fault (issue 38).
 *
 * Run with the machine's own old Node and the npm that came with it (Node 20 and npm 11 on this
 * project's machines; SVC_OLD_NODE names another), as a user of that machine would run them.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { copyClone } from '../helpers/clone-copy.js';
import { tempDir } from '../helpers/temp-dir.js';

const OLD_NODE = process.env.SVC_OLD_NODE ?? '/usr/bin/node';
const oldVersion = fs.existsSync(OLD_NODE) ? spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim() : '';
const [major = 0, minor = 0] = oldVersion.split('.').map(Number);
const isOld = oldVersion !== '' && (major < 22 || (major === 22 && minor < 12));
/** The npm installed beside that Node (Debian's and nodejs.org's layout: <prefix>/lib/node_modules/npm). */
const OLD_NPM = path.join(path.dirname(OLD_NODE), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
const LINE = `svc needs Node.js 22.12 or newer (22, 24 or 26); this is Node.js ${oldVersion}.`;

const dir = tempDir('svc-old-node-');
/** One npm cache for both installs: the second finds the packages the first fetched. */
const cache = path.join(dir, 'npm-cache');

/** `npm <args>` with the old Node, whose folder comes first on PATH (npm's scripts run `node` from it). */
function oldNpm(args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
  // Not the npm_* variables of an `npm test` around vitest: they describe another npm and Node.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return new Promise((resolve, reject) => {
    const child = spawn(OLD_NODE, [OLD_NPM, ...args, '--no-audit', '--no-fund'], {
      cwd,
      env: { ...env, PATH: `${path.dirname(OLD_NODE)}${path.delimiter}${process.env.PATH}`, npm_config_cache: cache, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/**
 * What svc itself printed: the output without npm's own lines (`npm warn …`, `npm error …`, `> script`).
 * npm shows a failed dependency script's output after `npm error`: such a line counts as svc's.
 */
const svcLines = (out: string) =>
  out
    .split('\n')
    .map((l) => l.trimEnd().replace(/^npm error (?=svc )/, ''))
    .filter((l) => l !== '' && !/^npm (warn|error|notice)\b/.test(l) && !l.startsWith('> '));

describe.skipIf(!isOld || !fs.existsSync(OLD_NPM))(`installing on an unsupported Node (${OLD_NODE} ${oldVersion || 'absent'})`, () => {
  it('npm ci in a clone: the one line, exit non-zero, nothing built, no crash', async () => {
    const clone = path.join(dir, 'clone');
    copyClone(clone);
    const r = await oldNpm(['ci'], clone);
    expect(r.code, r.out).not.toBe(0);
    expect(r.out).not.toMatch(/Segmentation fault|SIGSEGV|code 139/);
    expect(svcLines(r.out), r.out).toEqual([LINE]);
    expect(fs.existsSync(path.join(clone, 'dist')), 'prepare built dist/').toBe(false);
  });

  it('installing the packed package in a project: the one line, exit non-zero, nothing left installed', async () => {
    const project = path.join(dir, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'old-node-project', private: true }));
    // Packed with the Node running the tests (dist/ is built by the project's globalSetup).
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
    expect(pack.status, pack.stderr).toBe(0);
    const tarball = path.join(dir, (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename);
    const r = await oldNpm(['install', tarball], project);
    expect(r.code, r.out).not.toBe(0);
    expect(svcLines(r.out), r.out).toEqual([LINE]);
    expect(fs.existsSync(path.join(project, 'node_modules', 'svc-emulator')), 'npm rolls the install back').toBe(false);
  });
});
