import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli.js';

/**
 * The repository's files as a fresh `git clone` of this working tree would have them (tracked and new
 * files, nothing git ignores: no node_modules, no dist/), copied into `dest`, links as links.
 */
export function copyClone(dest: string): void {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const from = path.join(ROOT, file);
    const to = path.join(dest, file);
    const stat = fs.lstatSync(from, { throwIfNoEntry: false });
    if (!stat) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (stat.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), to);
    else {
      fs.copyFileSync(from, to);
      fs.chmodSync(to, stat.mode);
    }
  }
}
