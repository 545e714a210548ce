/**
 * The published package, used as a user uses it: `npm pack`, install the tarball into a fresh
 * project, type-check test/package/consumer/consumer.ts there with `strict` and
 * `skipLibCheck: false` (the consumer has none of our devDependencies, so a public type that reaches
 * better-sqlite3's types fails with TS7016), then run it with Node: start the emulator in-process,
 * create an invoice over HTTP, verify the webhook it sends, stop.
 *
 * Installing is offline-first (`--prefer-offline`: the packages are in npm's cache after `npm ci`),
 * with install scripts skipped (cloudflared's downloads its binary, which this machine cannot):
 * better-sqlite3 13 needs none, its prebuilt addon is inside its package (CONTRACT §11).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { bash, docBlocks } from '../helpers/doc-blocks.js';
import { tempDir } from '../helpers/temp-dir.js';

const project = tempDir('svc-consumer-');
const CONSUMER = path.join(ROOT, 'test/package/consumer/consumer.ts');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const versionOf = (pkg: string, from = ROOT) =>
  (JSON.parse(fs.readFileSync(path.join(from, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  code: number | null;
  stdout: string;
  /** stdout and stderr as they came, for messages. */
  out: string;
}

function run(command: string, args: string[], cwd: string, timeoutMs = 150_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let out = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      out += d;
    });
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, out });
    });
  });
}

async function ok(command: string, args: string[], cwd: string): Promise<string> {
  const r = await run(command, args, cwd);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.code}:\n${r.out}`);
  return r.stdout;
}

/** Packages the public declarations may import: dependencies of the package (never a devDependency). */
const DEPENDENCIES_TYPES = ['zod'];

const tsconfig = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    outDir: 'out',
  },
  files: ['consumer.ts'],
};

beforeAll(async () => {
  // dist/ was built by the project's globalSetup (test/helpers/build-once.ts): pack it as is.
  const packed = JSON.parse(await ok('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], ROOT)) as { filename: string }[];
  const tarball = path.join(project, packed[0]!.filename);

  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'svc-consumer', private: true, type: 'module' }));
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  fs.copyFileSync(CONSUMER, path.join(project, 'consumer.ts'));
  // The consumer's own @types/node (any TypeScript project on Node has it); better-sqlite3 pinned
  // to our version, so that the native module copied below matches its JavaScript.
  const sqlite = versionOf('better-sqlite3');
  await ok(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      tarball,
      `better-sqlite3@${sqlite}`,
      `@types/node@${versionOf('@types/node')}`,
    ],
    project,
  );
  expect(versionOf('better-sqlite3', project)).toBe(sqlite);
});

describe('the packed package in a fresh project', () => {
  it('installs without a compiler: no installed package builds native code at install (CONTRACT §11)', () => {
    const compiles: string[] = [];
    const modules = path.join(project, 'node_modules');
    const packages = fs
      .readdirSync(modules, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('package.json') && path.basename(path.dirname(f)) !== 'node_modules' && !f.includes(`${path.sep}test${path.sep}`));
    for (const file of packages) {
      const dir = path.join(modules, path.dirname(file));
      let pkg: { name?: string; scripts?: Record<string, string>; gypfile?: boolean };
      try {
        pkg = JSON.parse(fs.readFileSync(path.join(modules, file), 'utf8'));
      } catch {
        continue;
      }
      if (!pkg.name || path.join(modules, pkg.name) !== dir) continue; // a package's own package.json only
      const scripts = ['preinstall', 'install', 'postinstall'].map((k) => pkg.scripts?.[k] ?? '').join(' ');
      // npm runs `node-gyp rebuild` itself for a binding.gyp without an install script, unless gypfile is false.
      const implicitGyp = fs.existsSync(path.join(dir, 'binding.gyp')) && pkg.gypfile !== false && !pkg.scripts?.install && !pkg.scripts?.preinstall;
      if (/node-gyp|prebuild-install|cmake-js|node-pre-gyp/.test(scripts) || implicitGyp) compiles.push(pkg.name);
    }
    expect(packages.length).toBeGreaterThan(20);
    expect(compiles).toEqual([]);
  });

  it('installs without our devDependencies: no @types/better-sqlite3, no kysely types in what the API reaches', () => {
    expect(fs.existsSync(path.join(project, 'node_modules/@types/better-sqlite3'))).toBe(false);
    // Every declaration file reachable from the entry point imports only other files of the package.
    const dist = path.join(project, 'node_modules/svc-emulator/dist');
    const seen = new Set<string>();
    const outside: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, spec] of fs
        .readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '') // JSDoc may say "import" and quote things
        .matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        if (spec!.startsWith('.')) visit(path.resolve(path.dirname(file), spec!.replace(/\.js$/, '.d.ts')));
        // zod's types describe the contract's bodies; zod is a dependency, installed with the package.
        else if (!DEPENDENCIES_TYPES.includes(spec!)) outside.push(`${path.relative(dist, file)} imports ${spec}`);
      }
    };
    visit(path.join(dist, 'index.d.ts'));
    visit(path.join(dist, 'client/typed.d.ts'));
    expect(outside).toEqual([]);
    expect(seen.size).toBeGreaterThan(3);
  });

  it('type-checks a consumer of the whole public API with strict and skipLibCheck: false', async () => {
    const r = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], project);
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
  });

  it('runs it: starts the emulator, creates an invoice over HTTP, verifies the webhook signature, stops', async () => {
    const r = await run(process.execPath, ['out/consumer.js'], project, 30_000);
    expect(r.code, r.out).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({
      webhookStatus: 200,
      createdStatus: 201,
      status: 'CREATED',
      verified: { id: `${summary.invoiceId}-1`, type: 'invoice.created', invoiceId: summary.invoiceId, amount: '12.50' },
      tampered: 'signature_mismatch',
      selfSigned: true,
      typed: { readBack: summary.invoiceId, missingCode: 'invoice_not_found' },
      advanced: { expired: 1, clockMoved: true, clockBack: true },
      afterReset: 404,
      eventTypes: ['delivery.result', 'delivery.sent', 'request'],
      fixedClock: '2030-01-01T00:00:00.000Z',
    });
    expect(summary.advanced.by).toBeGreaterThanOrEqual(3_600_000);
    expect(summary.seen.slice(0, 2)).toEqual([
      `--> invoice.created [${summary.invoiceId}-1] attempt 1 scheduled`,
      `<-- 200 [${summary.invoiceId}-1] succeeded next=none ok=true`,
    ]);
  });

  it("puts the CLI on the project's PATH as both `svc` and `svc-emulator` (the package name: `npx svc-emulator …` works anywhere)", async () => {
    const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const bin of ['svc', 'svc-emulator']) {
      // The link npm makes for each bin (what a package.json script or a PATH with node_modules/.bin runs)…
      const linked = await run(path.join(project, 'node_modules/.bin', bin), ['--version'], project, 30_000);
      expect(linked.code, `${bin}: ${linked.out}`).toBe(0);
      expect(linked.stdout.trim()).toBe(version);
      // …and npx, offline, from a subfolder of the project.
      const sub = path.join(project, 'src');
      fs.mkdirSync(sub, { recursive: true });
      const r = await run('npx', ['--offline', '--no-install', bin, '--version'], sub, 30_000);
      expect(r.code, `${bin}: ${r.out}`).toBe(0);
      expect(r.stdout.trim()).toBe(version);
    }
  });
  // Last: it writes the project's allowScripts.
  it("npm 11's install-script review: the README names every package it lists, and its commands leave none unreviewed", async ({ skip }) => {
    const pending = async () => {
      const r = await run('npm', ['install-scripts', 'ls', '--json'], project, 30_000);
      if (r.code !== 0 && /Unknown command|not a valid command/i.test(r.out)) return null;
      expect(r.code, r.out).toBe(0);
      return ((JSON.parse(r.stdout) as { allowScripts?: { name: string }[] }).allowScripts ?? []).map((p) => p.name).sort();
    };
    const before = await pending();
    if (before === null) return skip('this npm has no `npm install-scripts` (allowScripts came in npm 11)');
    expect(before.length).toBeGreaterThan(0);
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('**In your own project.**'), readme.indexOf('## The model in one minute'));
    for (const name of before) expect(section, `README's "In your own project" says what ${name}'s install script does`).toContain(`- \`${name}\`:`);
    const [commands, ...more] = docBlocks('README.md', 'readme-allow-scripts');
    expect(more).toEqual([]);
    const result = bash(`set -euo pipefail\n${commands}`, project);
    expect(result.status, result.stderr).toBe(0);
    expect(await pending()).toEqual([]);
  });
});
