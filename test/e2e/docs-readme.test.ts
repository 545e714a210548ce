import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnCli, type LiveCli } from '../helpers/cli.js';
import { copyClone } from '../helpers/clone-copy.js';
import { bash, docBlocks, installSvc } from '../helpers/doc-blocks.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The README's day-one commands and curl calls run as written against `svc dev`, with `svc` on the
 * PATH as a project's node_modules/.bin (or the clone's bin/) puts it there.
 */
describe('README: the commands and curl calls of "the six things"', () => {
  let dev: LiveCli;
  let cwd: string;
  let ready: { baseUrl: string; test: { merchantKey: string } };
  beforeAll(async () => {
    cwd = tempDir('svc-readme-');
    dev = spawnCli(['dev', '--port', '0', '--json', '--memory'], { cwd });
    ready = JSON.parse(await dev.waitForLine((l) => l.includes('"type":"ready"')));
    installSvc(path.join(cwd, 'bin'));
  });
  afterAll(() => dev.stop());

  it('the svc commands run against svc dev, found through .svc/dev.json', () => {
    const [script, ...more] = docBlocks('README.md', 'readme-commands');
    expect(more).toEqual([]);
    const result = bash(`set -euo pipefail\n${script}`, cwd, { PATH: `${path.join(cwd, 'bin')}:${process.env.PATH}` });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('→ invoice.paid');
    // The list printed with --json is the API's list: the triggered invoice is in it, PAID.
    const list = /^\{\n[\s\S]*?^\}$/m.exec(result.stdout);
    expect(list, result.stdout).not.toBeNull();
    expect(JSON.parse(list![0]).data).toContainEqual(expect.objectContaining({ status: 'PAID' }));
  });

  it('the curl calls succeed with the base URL and merchant key svc dev printed', () => {
    const [script, ...more] = docBlocks('README.md', 'readme-curl');
    expect(more).toEqual([]);
    const result = bash(`set -euo pipefail\n${script}`, cwd, { SVC_BASE_URL: ready.baseUrl, SVC_MERCHANT_KEY: ready.test.merchantKey });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('"referenceId":"order-1001"');
  });
});

/**
 * The quick start's start command, after its `npm ci`, in a copy of the clone (its files, the built
 * dist/, node_modules linked): it runs the clone's own svc, builds nothing again and leaves nothing in
 * npm's cache (issue 38: `npx svc dev` copied the clone into npm's `_npx` cache and built it there).
 * Then the README's PATH line, in the same clone, finds that svc and the emulator it started.
 */
describe('README: the quick start', () => {
  it('has two commands: install and start, install and test', () => {
    const [block, ...more] = docBlocks('README.md', 'readme-quickstart');
    expect(more).toEqual([]);
    const commands = block!
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter(Boolean);
    expect(commands).toEqual([expect.stringMatching(/^npm ci && /), 'npm ci && npm test']);
  });

  it("starts the clone's own svc dev, with no second build and nothing in npm's cache; the PATH line finds the clone's svc", async () => {
    const [block] = docBlocks('README.md', 'readme-quickstart');
    const start = block!
      .split('\n')[0]!
      .replace(/#.*$/, '')
      .trim()
      .replace(/^npm ci && /, '');
    const clone = path.join(tempDir('svc-quickstart-'), 'clone');
    copyClone(clone);
    fs.cpSync(path.join(ROOT, 'dist'), path.join(clone, 'dist'), { recursive: true, preserveTimestamps: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    const built = fs.statSync(path.join(clone, 'dist', 'cli', 'main.cjs')).mtimeMs;
    const npmCache = path.join(clone, '..', 'npm-cache');
    // As run in a terminal: its own process group, stopped as Ctrl-C stops it. A free port, no file.
    const child = spawn('bash', ['-c', start], {
      cwd: clone,
      detached: true,
      env: { ...process.env, NO_COLOR: '1', SVC_PORT: '0', SVC_MEMORY: '1', npm_config_cache: npmCache },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    try {
      const baseUrl = await new Promise<string>((resolve, reject) => {
        const lines: string[] = [];
        const timer = setTimeout(() => reject(new Error(`no banner within 30 s:\n${lines.join('\n')}\n${stderr}`)), 30_000);
        readline.createInterface({ input: child.stdout }).on('line', (line) => {
          lines.push(line);
          const url = /^\s+Base URL\s+(\S+)/.exec(line)?.[1];
          if (url) {
            clearTimeout(timer);
            resolve(url);
          }
        });
        exited.then(() => reject(new Error(`exited before the banner:\n${lines.join('\n')}\n${stderr}`)));
      });
      expect(fs.existsSync(path.join(clone, '.svc', 'dev.json'))).toBe(true);
      const [pathBlock, ...more] = docBlocks('README.md', 'readme-path');
      expect(more).toEqual([]);
      const r = bash(`set -euo pipefail\n${pathBlock}\ncommand -v svc\nsvc time show --json`, clone);
      expect(r.status, r.stderr).toBe(0);
      const [version, where] = r.stdout.split('\n');
      expect(version).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
      expect(where).toBe(path.join(clone, 'bin', 'svc'));
      expect(JSON.parse(r.stdout.split('\n').slice(2).join('\n'))).toHaveProperty('offsetSeconds', 0);
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      process.kill(-child.pid!, 'SIGINT');
      await exited;
    }
    expect(fs.statSync(path.join(clone, 'dist', 'cli', 'main.cjs')).mtimeMs, 'dist/ was built again').toBe(built);
    expect(fs.existsSync(path.join(npmCache, '_npx')), 'npm copied the clone into its _npx cache').toBe(false);
  });
});
