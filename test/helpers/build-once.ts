/**
 * vitest globalSetup of the projects that run what users run (e2e spawns bin/svc.js, which imports
 * dist/; package packs dist/): builds dist/ from src/ before their first test, so a single file runs
 * on its own (`npx vitest run --project e2e test/e2e/dev.test.ts`) and never against a stale build.
 * The build is skipped when dist/ was last built here from the same sources (a hash of src/, the
 * tsconfigs and the TypeScript version, kept in node_modules/.cache), and done once per vitest run
 * even when several projects ask for it.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STAMP = path.join(ROOT, 'node_modules', '.cache', 'svc-tests', 'dist-sources.sha256');
/** Files the build must have produced; a dist/ missing one is rebuilt whatever the stamp says. */
const OUTPUTS = ['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js'];

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** What the build reads: a change to any of it means a new build. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const inputs = [...filesUnder(path.join(ROOT, 'src')), path.join(ROOT, 'tsconfig.json'), path.join(ROOT, 'tsconfig.build.json')];
  for (const file of inputs) hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  hash.update(JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/typescript/package.json'), 'utf8')).version);
  return hash.digest('hex');
}

function tsc(): Promise<void> {
  const bin = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`The build for the e2e tests failed (tsc -p tsconfig.build.json, exit ${code}):\n${out}`)),
    );
  });
}

async function build(): Promise<void> {
  const hash = sourcesHash();
  const built = OUTPUTS.every((f) => fs.existsSync(path.join(ROOT, f)));
  if (built && fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === hash) return;
  // Forget the old stamp first: a build that fails halfway must not be taken for a good one.
  fs.rmSync(STAMP, { force: true });
  await tsc();
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, hash);
}

// Each project's globalSetup runs in the same (main) vitest process: share one build between them.
const shared = globalThis as { svcBuild?: Promise<void> };

export default async function setup(): Promise<void> {
  shared.svcBuild ??= build();
  await shared.svcBuild;
}
