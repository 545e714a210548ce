/**
 * Where the PostgreSQL programs are, and the folder and user a test cluster needs before initdb.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

// Not imported from cli.ts: that one loads vitest's helpers, and globalSetup (postgres-global.ts) runs outside a worker.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const run = promisify(execFile);

/** The unprivileged user the tests' servers run as when the tests run as root (scripts/postgres-user.sh). */
export const SERVER_USER = 'svc-pg';

const found = new Map<string, string>();

/**
 * A PostgreSQL program's path: from PATH, else Debian's /usr/lib/postgresql/<newest>/bin, which the
 * `postgresql` package installs without putting initdb, pg_ctl or postgres on PATH.
 */
export function postgresBin(tool: string): string {
  let bin = found.get(tool);
  if (bin) return bin;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, tool))) bin = path.join(dir, tool);
    if (bin) break;
  }
  if (!bin) {
    const base = '/usr/lib/postgresql';
    const versions = fs.existsSync(base) ? fs.readdirSync(base).filter((v) => /^\d+$/.test(v)) : [];
    const newest = versions.sort((a, b) => Number(b) - Number(a)).find((v) => isExecutable(path.join(base, v, 'bin', tool)));
    if (newest) bin = path.join(base, newest, 'bin', tool);
  }
  if (!bin) throw new Error(`PostgreSQL's ${tool} was not found on PATH or in /usr/lib/postgresql/*/bin: install Debian's postgresql package (.ci/run does)`);
  found.set(tool, bin);
  return bin;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Makes `dir` usable by the server's user. As root: creates the user if missing (the setup script,
 * idempotent), gives it the folder, and lets it through the folders above, up to `searchableFrom`:
 * the tests' root is made 0700 by mkdtemp, and the server opens its data folder by path. Only the
 * search bit (o+x) is added, never read: nobody can list those folders who could not before.
 */
export async function prepareFolderFor(dir: string, searchableFrom: string, asRoot: boolean): Promise<void> {
  if (!asRoot) return;
  await run(path.join(ROOT, 'scripts', 'postgres-user.sh'), [SERVER_USER]);
  const top = path.resolve(searchableFrom);
  if (dir !== top && !dir.startsWith(top + path.sep)) throw new Error(`postgres folder ${dir} is not under ${top}`);
  for (let d = dir; ; d = path.dirname(d)) {
    const mode = fs.statSync(d).mode;
    if (!(mode & 0o001)) fs.chmodSync(d, (mode & 0o7777) | 0o001);
    if (d === top) break;
  }
  const chown = spawnSync('chown', ['-R', SERVER_USER, dir], { encoding: 'utf8' });
  if (chown.status !== 0) throw new Error(`chown ${SERVER_USER} ${dir} failed: ${chown.stderr}`);
  // Above the tests' root (normally /tmp, 1777) the folders must already let it through.
  const probe = spawnSync('runuser', ['-u', SERVER_USER, '--', 'test', '-w', dir]);
  if (probe.status !== 0) throw new Error(`user ${SERVER_USER} cannot reach ${dir}: a folder above ${top} is not searchable by other users`);
}
