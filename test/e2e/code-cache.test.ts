/**
 * dist/'s chunks load with a V8 code cache made after they ran (src/entry/chunk-loader.ts): one per
 * chunk, Node version and kind of start, under the user's cache folder. A cache V8 refuses (another
 * Node, a damaged file) costs only the speed-up; with source maps on, chunks load through Node's
 * require (stacks name src/) and no cache is written.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('svc-code-cache-');

/** Runs `node args…` with its caches under `cache` (XDG_CACHE_HOME); its exit code and output. */
function run(args: string[], cache: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', XDG_CACHE_HOME: cache, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The cache files written under `cache`, by name (content hashes left out). */
function cachesIn(cache: string): string[] {
  const folder = path.join(cache, 'svc', 'code-cache', `${process.version}-${process.arch}`);
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .map((f) => f.replace(/-[\w-]{8}\./, '.'))
    .sort();
}

const EXEC = [BIN, 'exec', '--', process.execPath, '-e', "process.stdout.write(process.env.SVC_BASE_URL ? 'ok' : 'no url')"];

describe('the chunks’ code cache', () => {
  // A cache is found by its chunk's file name, and V8 checks only a source's length against it: a
  // chunk rebuilt at the same length under the same name ran the old code (the entry points had no
  // hash in their names, and a rebuilt dist/index.cjs loaded a chunk that no longer existed).
  it('every chunk dist/ loads has a hash of its content in its name', () => {
    // The CLI's CommonJS entry points are not chunks: bin/svc.js names them, and Node's require loads them.
    const entries = ['runtime.cjs', path.join('cli', 'main.cjs')];
    const chunks = fs.readdirSync(path.join(ROOT, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.cjs') && !entries.includes(f));
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.filter((f) => !/-[\w-]{8}\.cjs$/.test(f))).toEqual([]);
  });

  it('svc exec writes one cache per chunk it ran, private to the user, and the next run reads them', () => {
    const cache = fs.mkdtempSync(path.join(dir, 'xdg-'));
    expect(run(EXEC, cache)).toMatchObject({ code: 0, stdout: 'ok', stderr: '' });
    expect(cachesIn(cache)).toEqual(['dev-exec.exec.v8', 'main.exec.v8', 'server-core.exec.v8', 'shared-core.exec.v8']);
    const folder = path.join(cache, 'svc', 'code-cache', `${process.version}-${process.arch}`);
    for (const f of fs.readdirSync(folder)) expect(fs.statSync(path.join(folder, f)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
    const before = fs.readdirSync(folder).map((f) => fs.statSync(path.join(folder, f)).mtimeMs);
    expect(run(EXEC, cache)).toMatchObject({ code: 0, stdout: 'ok', stderr: '' });
    // Read and accepted: nothing written again.
    expect(fs.readdirSync(folder).map((f) => fs.statSync(path.join(folder, f)).mtimeMs)).toEqual(before);
  });

  it('a new build’s first run removes the caches of other builds: the same chunk under another hash, and week-old ones', () => {
    const cache = fs.mkdtempSync(path.join(dir, 'xdg-'));
    const folder = path.join(cache, 'svc', 'code-cache', `${process.version}-${process.arch}`);
    fs.mkdirSync(folder, { recursive: true });
    const put = (name: string, ageDays: number) => {
      fs.writeFileSync(path.join(folder, name), 'an older build');
      const at = new Date(Date.now() - ageDays * 24 * 3600 * 1000);
      fs.utimesSync(path.join(folder, name), at, at);
    };
    put('main-OLDbuild.exec.v8', 0); // main.exec of another build, made today
    put('chunk-ABCDEFGH-OLDbuild.exec.v8', 8); // a shared chunk of another build, unused for 8 days
    put('chunk-ABCDEFGH-OLDbuil2.dev.v8', 1); // a recent cache of some other chunk: kept
    expect(run(EXEC, cache)).toMatchObject({ code: 0, stdout: 'ok', stderr: '' });
    const names = fs.readdirSync(folder);
    expect(names).not.toContain('main-OLDbuild.exec.v8');
    expect(names).not.toContain('chunk-ABCDEFGH-OLDbuild.exec.v8');
    expect(names).toContain('chunk-ABCDEFGH-OLDbuil2.dev.v8');
    expect(cachesIn(cache)).toEqual(['chunk-ABCDEFGH.dev.v8', 'dev-exec.exec.v8', 'main.exec.v8', 'server-core.exec.v8', 'shared-core.exec.v8']);
  });

  it('a damaged cache is refused by V8: the command runs the same, and the cache is made again', () => {
    const cache = fs.mkdtempSync(path.join(dir, 'xdg-'));
    expect(run(EXEC, cache).code).toBe(0);
    const folder = path.join(cache, 'svc', 'code-cache', `${process.version}-${process.arch}`);
    for (const f of fs.readdirSync(folder)) fs.writeFileSync(path.join(folder, f), 'not a code cache');
    expect(run(EXEC, cache)).toMatchObject({ code: 0, stdout: 'ok', stderr: '' });
    for (const f of fs.readdirSync(folder)) expect(fs.readFileSync(path.join(folder, f), 'utf8')).not.toBe('not a code cache');
  });

  it('the package import keeps its own caches (api), made once startEmulator has run', () => {
    const cache = fs.mkdtempSync(path.join(dir, 'xdg-'));
    const probe = path.join(dir, 'api-probe.mjs');
    fs.writeFileSync(
      probe,
      `const { startEmulator } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href)});\nconst e = await startEmulator({ port: 0 });\nawait e.stop();\n`,
    );
    expect(run([probe], cache)).toMatchObject({ code: 0, stderr: '' });
    // No request schemas: a start loads zod only when something first validates with it.
    expect(cachesIn(cache)).toEqual(['index.api.v8', 'server-core.api.v8', 'shared-core.api.v8']);
  });

  // The package's caches are made by what the package runs: `svc --help` once wrote them, holding
  // none of a start's functions, and V8 kept serving them to every test suite's startEmulator.
  it('the CLI without a command word keeps caches of its own (cli), never the package’s', () => {
    const cache = fs.mkdtempSync(path.join(dir, 'xdg-'));
    expect(run([BIN, '--help'], cache)).toMatchObject({ code: 0, stderr: '' });
    const written = cachesIn(cache);
    expect(written).toContain('main.cli.v8');
    expect(written.filter((f) => !f.endsWith('.cli.v8'))).toEqual([]);
  });

  it('with source maps on (SVC_DEBUG=1), chunks load through Node’s require and no cache is written', () => {
    const cache = fs.mkdtempSync(path.join(dir, 'xdg-'));
    expect(run(EXEC, cache, { SVC_DEBUG: '1' })).toMatchObject({ code: 0, stdout: 'ok', stderr: '' });
    expect(cachesIn(cache)).toEqual([]);
  });

  // The loader must not cost a readable stack (docs/decisions.md): a frame of a chunk it ran names the
  // function and the chunk's file, line and column, as an ES module's would; with source maps on,
  // the src/ file and line.
  it('an error thrown in a chunk it loaded names the function and the file: the chunk, or src/ with source maps', () => {
    const cache = fs.mkdtempSync(path.join(dir, 'xdg-'));
    const probe = path.join(dir, 'stack-probe.mjs');
    fs.writeFileSync(
      probe,
      [
        `const { startEmulator } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href)});`,
        "await startEmulator({ port: 0, config: { journalSize: -1 } }).catch((e) => process.stdout.write(e.stack.split('\\n')[1]));",
      ].join('\n'),
    );
    for (let i = 0; i < 2; i++) {
      // Compiled from source, then from the cache the first run wrote.
      const { code, stdout } = run([probe], cache);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^ +at checkJournalSize \(.*[/\\]dist[/\\]chunks[/\\]server-core-[\w-]{8}\.cjs:\d+:\d+\)$/);
    }
    const mapped = run(['--enable-source-maps', probe], cache);
    expect(mapped.stdout).toMatch(/^ +at checkJournalSize \(.*[/\\]src[/\\]server[/\\]start-options\.ts:\d+:\d+\)$/);
  });

  it('NODE_DISABLE_COMPILE_CACHE turns it off too', () => {
    const cache = fs.mkdtempSync(path.join(dir, 'xdg-'));
    expect(run(EXEC, cache, { NODE_DISABLE_COMPILE_CACHE: '1' })).toMatchObject({ code: 0, stdout: 'ok', stderr: '' });
    expect(cachesIn(cache)).toEqual([]);
  });
});
