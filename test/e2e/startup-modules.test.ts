/**
 * What the built package loads to start and serve its first requests (docs/performance.md, #12 and
 * #13): not kysely (the build compiles every statement and migration to SQL), not undici (loaded for
 * the first webhook delivery), not qrcode (the first checkout page), and in `svc dev` without a config
 * file, not cosmiconfig. Each took tens to hundreds of milliseconds of a cold start. Every module a
 * process resolves is recorded, the ES modules by a module hook (`node --import`) and the CommonJS
 * ones (dist/'s chunks load their dependencies with `require`) from require's cache as the process
 * exits, so a static import that brings one back onto the start-up path fails here, whatever the
 * timing of this machine. dist/'s own modules are counted too: each costs a start about a
 * millisecond of CPU, and the build groups what the hot starts run into a few (scripts/hot-chunks.mjs).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { BIN, ROOT } from '../helpers/cli.js';
import { EMPTY_IMAGE_FILE } from '../../src/store/sqlite/empty-image.js';
import { readSchema } from '../../src/store/expected-schema.js';
import { MIGRATION_TABLE, migrate, recorded } from '../../src/store/migrate.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('svc-startup-modules-');
const REGISTER = path.join(dir, 'register.mjs');
// Synchronous, in-thread hooks (module.registerHooks, Node 22.15+): module.register() and its hooks
// thread are deprecated from Node 26 on, and its warning would be the stderr these tests check.
fs.writeFileSync(
  REGISTER,
  `import fs from 'node:fs';
import Module from 'node:module';
const out = process.env.SVC_TEST_MODULES_OUT;
Module.registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    fs.appendFileSync(out, result.url + '\\n');
    return result;
  },
});
process.on('exit', () => {
  fs.appendFileSync(out, Object.keys(Module._cache).map((f) => f + '\\n').join(''));
  fs.appendFileSync(out, process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => 'builtin:' + m.slice(13) + '\\n').join(''));
});
`,
);

/** The packages of node_modules/ among the modules a process resolved. */
function packagesIn(file: string): string[] {
  const urls = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const names = urls.map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]).filter((n): n is string => Boolean(n));
  return [...new Set(names)].sort();
}

/** The dist/ chunks a process loaded (require's cache: the traced processes load them through Node's require), as paths. */
function distChunksIn(file: string): string[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  // Chunks only, whose names carry a hash: not the CLI's CommonJS entry points (dist/runtime.cjs, dist/cli/main.cjs).
  return [...new Set(lines.filter((l) => l.startsWith('/') && l.includes('/dist/') && /-[\w-]{8}\.cjs$/.test(l)))].sort();
}

/** The sources of the loaded dist/ chunks (their source maps'), as paths from the repository's root. */
function sourcesIn(file: string): string[] {
  const sources = new Set<string>();
  for (const chunk of distChunksIn(file)) {
    const map = `${chunk}.map`;
    if (!fs.existsSync(map)) continue;
    for (const source of JSON.parse(fs.readFileSync(map, 'utf8')).sources as string[]) sources.add(source.replace(/^(\.\.\/)+/, ''));
  }
  return [...sources].sort();
}

/** The bundled packages (node_modules/… among a loaded dist/ chunk's source map sources). */
function bundledIn(file: string): string[] {
  const names = sourcesIn(file).map((source) => /node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\//.exec(source)?.[1]);
  return [...new Set(names.filter((n): n is string => Boolean(n)))].sort();
}

/** dist/'s chunks a process loaded, by name (their content hash left out). */
function distModulesIn(file: string): string[] {
  return distChunksIn(file).map((f) => f.slice(f.indexOf('/dist/') + 6).replace(/-[\w-]{8}\.cjs$/, '.cjs'));
}

/** Node's own modules a process loaded (`node:` built-ins and their internals). */
function builtinsIn(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('builtin:'))
    .map((l) => l.slice('builtin:'.length));
}

// --enable-source-maps: dist/'s chunks then load through Node's require (src/entry/chunk-loader.ts),
// whose cache lists them; without it they load through vm.Script, the same chunks in the same order.
const TRACE = ['--enable-source-maps', '--import', pathToFileURL(REGISTER).href];

function traced(args: string[], out: string, cwd = dir) {
  return spawn(process.execPath, [...TRACE, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', SVC_TEST_MODULES_OUT: out },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A traced process run to its end: its exit code and what it printed. */
async function runTraced(args: string[], out: string): Promise<{ code: unknown; stdout: string; stderr: string }> {
  const child = traced(args, out);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

// Starts the emulator from dist/ on a fresh file (migrations run) and in memory, and makes the first
// requests of a test suite: creates, reads and every list with and without its filters.
const PROBE = `
import http from 'node:http';
import path from 'node:path';
const { startEmulator } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href)});
function call(e, method, p, body) {
  return new Promise((resolve, reject) => {
    const data = body ? JSON.stringify(body) : undefined;
    const headers = { authorization: 'Bearer ' + e.keys.test.partnerKey, 'idempotency-key': 'k-' + Math.random() };
    if (data) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
    const req = http.request(e.url + p, { method, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => (res.statusCode < 300 ? resolve(JSON.parse(text)) : reject(new Error(method + ' ' + p + ': ' + res.statusCode + ' ' + text))));
    });
    req.on('error', reject);
    req.end(data);
  });
}
for (const db of [':memory:', path.join(process.argv[2], 'probe.sqlite')]) {
  const e = await startEmulator({ port: 0, db });
  const merchantId = e.keys.test.merchantId;
  const invoice = await call(e, 'POST', '/v1/partner/invoices', { merchantId, amount: '25.00' });
  await call(e, 'GET', '/v1/partner/invoices/' + invoice.id);
  for (const q of ['', '?merchantId=' + merchantId, '?status=CREATED', '?limit=1']) await call(e, 'GET', '/v1/partner/invoices' + q);
  await call(e, 'GET', '/v1/partner/merchants');
  await call(e, 'GET', '/v1/partner/webhook/deliveries');
  await e.reset();
  await e.stop();
}
process.stdout.write('done\\n');
`;

describe('what the built package loads to start', () => {
  // dist/store/empty.sqlite: what an in-memory emulator starts from instead of running the migrations
  // (src/store/sqlite/empty-image.ts). The build makes it from the recorded SQL; it must be what the sources'
  // migrations make (test/integration/compiled-sql.test.ts holds the same for the function that makes it).
  it('the shipped empty image is the database the migrations make', async () => {
    const image = new BetterSqlite3(fs.readFileSync(path.join(ROOT, EMPTY_IMAGE_FILE)));
    const migrated = new BetterSqlite3(':memory:');
    try {
      await migrate(migrated);
      const shape = (db: BetterSqlite3.Database) => ({
        schema: readSchema(db),
        applicationId: db.pragma('application_id', { simple: true }),
        recorded: recorded(db),
        rows: db.prepare(`SELECT count(*) FROM ${MIGRATION_TABLE}`).pluck().get(),
      });
      expect(shape(migrated).schema.length).toBeGreaterThan(10);
      expect(shape(image)).toEqual(shape(migrated));
    } finally {
      image.close();
      migrated.close();
    }
  });

  it('startEmulator, a create, reads and lists, reset and stop load neither kysely, undici nor qrcode', async () => {
    const probe = path.join(dir, 'probe.mjs');
    const out = path.join(dir, 'probe-modules.txt');
    fs.writeFileSync(probe, PROBE);
    expect(await runTraced([probe, dir], out)).toEqual({ code: 0, stdout: 'done\n', stderr: '' });
    const loaded = packagesIn(out);
    expect(loaded).toContain('better-sqlite3'); // the hook saw the package's own imports
    // viem: only local chains (--chains, CONTRACT §14) load it.
    expect(loaded.filter((p) => ['kysely', 'undici', 'qrcode', 'pngjs', 'viem'].includes(p))).toEqual([]);
    // Few modules, each holding much of what runs (scripts/hot-chunks.mjs): each one costs the
    // loader about a millisecond whatever its size. The entry, the shared and the server's code, the
    // routes (loaded by the first request), the request schemas with zod.
    expect(distModulesIn(out)).toEqual(['chunks/schemas.cjs', 'chunks/serve.cjs', 'chunks/server-core.cjs', 'chunks/shared-core.cjs', 'index.cjs']);
  });

  // A suite's first steps, start and create, need no zod (src/server/validation/invoice-bodies.ts)
  // and no node:crypto (src/domain/sha256.ts, os-random.ts); the in-process API validates
  // synchronously all the same: dist/ loads zod and the request schemas when they are first read
  // (src/server/validation/schemas.ts, scripts/commonjs-chunks.mjs).
  it('startEmulator and a create load neither zod nor node:crypto; faults.add loads zod at once, synchronously, when first called', async () => {
    const run = async (name: string, after: string) => {
      const probe = path.join(dir, `${name}.mjs`);
      const out = path.join(dir, `${name}-modules.txt`);
      fs.writeFileSync(
        probe,
        // node:http as bench/lib/startup-probe.mjs gets it: an ES import's facade reads every export,
        // which loads Node's undici and node:crypto with it.
        `const http = process.getBuiltinModule('node:http');
const { startEmulator } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href)});
const e = await startEmulator({ port: 0, db: ':memory:' });
const body = JSON.stringify({ merchantId: e.keys.test.merchantId, amount: '25.00' });
const status = await new Promise((resolve, reject) => {
  const headers = { authorization: 'Bearer ' + e.keys.test.partnerKey, 'content-type': 'application/json', 'idempotency-key': 'k', 'content-length': Buffer.byteLength(body) };
  http.request(e.url + '/v1/partner/invoices', { method: 'POST', headers, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); }).on('error', reject).end(body);
});
const said = [String(status)];
${after}
await e.stop();
process.stdout.write(said.join(' ') + '\\n');
`,
      );
      const { code, stdout, stderr } = await runTraced([probe], out);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      return { stdout, bundled: bundledIn(out), modules: distModulesIn(out), builtins: builtinsIn(out) };
    };
    const created = await run('create-only', '');
    expect(created.stdout).toBe('201\n');
    expect(created.bundled).not.toContain('zod');
    expect(created.builtins.filter((b) => b === 'crypto' || b.startsWith('internal/crypto/'))).toEqual([]);
    expect(created.modules).toEqual(['chunks/serve.cjs', 'chunks/server-core.cjs', 'chunks/shared-core.cjs', 'index.cjs']);

    const faulted = await run(
      'create-then-fault',
      `try { e.faults.add({ match: {}, action: { status: 999 }, when: 'before' }); said.push('accepted'); } catch (error) { said.push(error.code + ':' + error.param); }
said.push(e.faults.add({ match: { path: '/v1/partner/merchants' }, action: { status: 503 }, when: 'before' }).action.code);`,
    );
    expect(faulted.stdout).toBe('201 validation_failed:action.status service_unavailable\n');
    expect(faulted.bundled).toContain('zod');
    expect(faulted.modules).toContain('chunks/schemas.cjs');
  });

  // Node compiles a whole static import graph before any of it runs: the compile cache, turned on by
  // the entry's first lines, serves only what is imported after. The emulator's code waits for
  // `startEmulator` (src/entry/index.ts), and the package's exports stay those of src/index.ts.
  it('the package import loads none of the emulator, and exports what src/index.ts exports', async () => {
    const probe = path.join(dir, 'import-only.mjs');
    const out = path.join(dir, 'import-only-modules.txt');
    fs.writeFileSync(
      probe,
      `const m = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href)});\nprocess.stdout.write(JSON.stringify(Object.keys(m).sort()));\n`,
    );
    const child = traced([probe], out);
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    const source = await import('../../src/index.js');
    expect(JSON.parse(stdout)).toEqual(Object.keys(source).sort());
    expect(packagesIn(out)).toEqual([]);
    expect(distModulesIn(out)).toEqual(['chunks/shared-core.cjs', 'index.cjs']);
  });

  // A client command is what scripts run in loops (#9): it needs the contract and HTTP, not commander
  // (main.ts reads a plain command line itself, src/cli/fast-parse.ts), the YAML parser (only a
  // config file's syntax error needs it) nor child_process.
  it('svc invoices create loads neither commander, the YAML parser, child_process nor crypto', async () => {
    const out = path.join(dir, 'list-modules.txt');
    const cwd = fs.mkdtempSync(path.join(dir, 'client-'));
    fs.writeFileSync(path.join(cwd, 'package.json'), '{"name":"app","private":true}');
    const child = spawn(process.execPath, [...TRACE, BIN, 'invoices', 'create', '--amount', '1.00', '--json'], {
      cwd,
      // Port 1 refuses at once: the command loads everything it needs, then exits 3 (unreachable).
      env: { ...process.env, NO_COLOR: '1', SVC_TEST_MODULES_OUT: out, SVC_BASE_URL: 'http://127.0.0.1:1', SVC_MERCHANT_KEY: 'test_x' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(3);
    expect(sourcesIn(out)).toContain('src/cli/commands/invoices/create.ts'); // the check sees what the chunks hold
    const bundled = bundledIn(out);
    expect(bundled).not.toContain('commander');
    expect(bundled).not.toContain('yaml');
    const builtins = builtinsIn(out);
    expect(builtins).toContain('http');
    expect(builtins).not.toContain('child_process');
    // The server's; a create's Idempotency-Key does without (node:crypto or the global webcrypto).
    expect(builtins.filter((b) => b === 'crypto' || b.startsWith('internal/crypto/'))).toEqual([]);
    // None of the emulator's code, and few modules (scripts/hot-chunks.mjs): the runtime check, the
    // CLI with the command's handler, the code it shares with the package.
    expect(distModulesIn(out)).toEqual(['chunks/shared-core.cjs', 'cli/main.cjs']);
  });

  // svc dev's and svc exec's start draws its keys and ids from /dev/urandom and hashes the keys with
  // @noble/hashes (src/domain/os-random.ts): node:crypto (~4 ms, 20 modules) waits for a request that needs it.
  it('svc exec -- node -e 0 loads no node:crypto', async () => {
    const out = path.join(dir, 'exec-modules.txt');
    const cwd = fs.mkdtempSync(path.join(dir, 'exec-'));
    const child = traced([BIN, 'exec', '--', process.execPath, '-e', '0'], out, cwd);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(stderr).toBe('');
    const builtins = builtinsIn(out);
    expect(builtins).toContain('http'); // the check sees what the process loaded
    expect(builtins.filter((b) => b === 'crypto' || b.startsWith('internal/crypto/'))).toEqual([]);
  });

  it('svc dev --memory without a config file, until it answers a create, loads neither kysely, undici nor cosmiconfig', async () => {
    const out = path.join(dir, 'dev-modules.txt');
    const cwd = fs.mkdtempSync(path.join(dir, 'project-'));
    fs.writeFileSync(path.join(cwd, 'package.json'), '{"name":"app","private":true}');
    const child = traced([BIN, 'dev', '--memory', '--port', '0', '--json'], out, cwd);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise((resolve) => child.on('close', resolve));
    const lines = readline.createInterface({ input: child.stdout });
    const ready = JSON.parse(await new Promise<string>((resolve) => lines.once('line', resolve)));
    expect(ready.type).toBe('ready');
    const created = await fetch(`${ready.baseUrl}/v1/partner/invoices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ready.test.partnerKey}`, 'content-type': 'application/json', 'idempotency-key': 'startup-modules' },
      body: JSON.stringify({ merchantId: ready.test.merchantId, amount: '1.00' }),
    });
    expect(created.status).toBe(201);
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
    expect(stderr).toBe('');
    const loaded = packagesIn(out);
    expect(loaded).toContain('better-sqlite3');
    expect(loaded.filter((p) => ['kysely', 'undici', 'cosmiconfig', 'qrcode', 'viem'].includes(p))).toEqual([]);
    expect(bundledIn(out)).not.toContain('commander');
    // svc dev's handler shares a module with svc exec's; the create validates its body without zod.
    expect(bundledIn(out)).not.toContain('zod');
    expect(distModulesIn(out)).toEqual(['chunks/dev-exec.cjs', 'chunks/serve.cjs', 'chunks/server-core.cjs', 'chunks/shared-core.cjs', 'cli/main.cjs']);
  });
});
