/**
 * vitest globalSetup of the projects that run what users run (e2e spawns bin/svc.js, which imports
 * dist/; package packs dist/): builds dist/ from src/ before their first test, so a single file runs
 * on its own (`npx vitest run --project e2e test/e2e/dev.test.ts`) and never against a stale build.
 * The build is skipped when dist/ was last built here from the same sources (a hash of src/, the
 * tsconfigs, the build's scripts and the TypeScript and esbuild versions, kept in node_modules/.cache) or, before any such build, when
 * dist/ is newer than src/; and it is done once per vitest run even when several projects ask.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STAMP = path.join(ROOT, 'node_modules', '.cache', 'svc-tests', 'dist-sources.sha256');
/** Files the build must have produced; a dist/ missing one is rebuilt whatever the stamp says. */
const OUTPUTS = ['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.cjs', 'dist/runtime.js', 'dist/runtime.cjs'];

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** What the build reads: a change to any of it means a new build. */
const inputs = (): string[] => [
  ...filesUnder(path.join(ROOT, 'src')),
  path.join(ROOT, 'tsconfig.json'),
  path.join(ROOT, 'tsconfig.build.json'),
  path.join(ROOT, 'scripts', 'build.mjs'),
  path.join(ROOT, 'scripts', 'hot-chunks.mjs'),
  path.join(ROOT, 'scripts', 'commonjs-chunks.mjs'),
];

function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of inputs()) hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  for (const tool of ['typescript', 'esbuild']) hash.update(JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', tool, 'package.json'), 'utf8')).version);
  return hash.digest('hex');
}

/** The package's own build (`npm run build`): declarations, compiled SQL, the esbuild bundle. */
function runBuild(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`The build for the e2e tests failed (node scripts/build.mjs, exit ${code}):\n${out}`)),
    );
  });
}

/**
 * With no stamp yet, a build made outside the tests (npm ci's `prepare`, `npm run build`) counts when
 * each output is newer than every input: CI would otherwise build twice in a row.
 */
function builtElsewhere(): boolean {
  const mtime = (f: string) => fs.statSync(f).mtimeMs;
  const newestInput = Math.max(...inputs().map(mtime));
  return OUTPUTS.every((f) => mtime(path.join(ROOT, f)) > newestInput);
}

async function build(): Promise<void> {
  const hash = sourcesHash();
  const built = OUTPUTS.every((f) => fs.existsSync(path.join(ROOT, f)));
  const stamp = fs.existsSync(STAMP) ? fs.readFileSync(STAMP, 'utf8') : null;
  if (built && (stamp === hash || (stamp === null && builtElsewhere()))) {
    if (stamp === null) writeStamp(hash);
    return;
  }
  // A stamp that matches nothing first: a build that fails (tsc still writes what it can) must not
  // pass for a good one next time, by its hash or by its outputs' age.
  writeStamp('incomplete');
  await runBuild();
  writeStamp(hash);
}

function writeStamp(hash: string): void {
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, hash);
}

// Each project's globalSetup runs in the same (main) vitest process: share one build between them.
const shared = globalThis as { svcBuild?: Promise<void> };

export default async function setup(): Promise<void> {
  shared.svcBuild ??= build();
  await shared.svcBuild;
}
