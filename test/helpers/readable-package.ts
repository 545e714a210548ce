import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, ROOT } from './cli.js';

/**
 * `bin/svc.js` as another user can run it. Tests that run svc as an unprivileged user (`nobody`, when
 * they run as root) need the package readable by that user; a clone in a private folder (mode 0700:
 * `mktemp -d`, /root, many home folders) is not (issue 38). Then the package is copied into `dir`,
 * which the caller makes reachable: bin/, dist/, package.json and the production dependencies,
 * which is what `npm install svc-emulator` gives a project (hard links where the file system allows:
 * the files are world-readable, only the folders above them were not). Otherwise the clone's own bin.
 *
 * `node` is the Node binary the user runs, `as` its uid and gid.
 */
export function packageFor(dir: string, node: string, as: { uid: number; gid: number }): string {
  const needed = [BIN, path.join(ROOT, 'dist', 'cli', 'main.cjs'), path.join(ROOT, 'node_modules', 'better-sqlite3', 'package.json')];
  const check = spawnSync(node, ['-e', `for (const f of ${JSON.stringify(needed)}) require('node:fs').accessSync(f, 4)`], as);
  if (check.status === 0) return BIN;
  const target = path.join(dir, 'svc-package');
  if (!fs.existsSync(path.join(target, 'bin', 'svc.js'))) {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
    };
    const production = Object.entries(lock.packages)
      .filter(([where, p]) => where.startsWith('node_modules/') && !p.dev && !p.devOptional)
      .map(([where]) => where);
    for (const part of ['package.json', 'bin', 'dist', ...production]) {
      if (!fs.existsSync(path.join(ROOT, part))) continue;
      fs.mkdirSync(path.dirname(path.join(target, part)), { recursive: true, mode: 0o755 });
      linkTree(path.join(ROOT, part), path.join(target, part));
    }
    fs.chmodSync(target, 0o755);
  }
  return path.join(target, 'bin', 'svc.js');
}

/** `from` at `to`: folders made (readable by all), files hard-linked, or copied across file systems. */
function linkTree(from: string, to: string): void {
  const stat = fs.lstatSync(from);
  if (stat.isDirectory()) {
    fs.mkdirSync(to, { recursive: true, mode: 0o755 });
    fs.chmodSync(to, 0o755);
    // A nested package (node_modules/a/node_modules/b) is listed on its own: linked once, here or there.
    for (const entry of fs.readdirSync(from)) if (!fs.existsSync(path.join(to, entry))) linkTree(path.join(from, entry), path.join(to, entry));
  } else if (stat.isSymbolicLink()) {
    fs.symlinkSync(fs.readlinkSync(from), to);
  } else {
    try {
      // A link shares the file's mode: only a file others may read already is linked.
      if ((stat.mode & 0o004) === 0) throw new Error('not readable by others');
      fs.linkSync(from, to);
    } catch {
      fs.copyFileSync(from, to);
      fs.chmodSync(to, stat.mode | 0o444);
    }
  }
}
