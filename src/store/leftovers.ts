import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../pid.js';

/**
 * What a killed svc leaves behind, removed at the next start: `.partial-<pid>-…` files of a save in
 * progress (a SIGKILL mid-backup left one every time, never cleaned up), and the temporary folders
 * `svc-snapshot(s)-<pid>-…` of an import or an in-memory emulator. Only those whose pid is no longer
 * running: another emulator's save in progress, or its folder, is never touched.
 */
export function removePartials(dir: string): void {
  for (const name of list(dir)) {
    const pid = /^\.partial-(\d+)-/.exec(name)?.[1];
    if (pid && !isAlive(Number(pid))) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/** Our temporary folders in the system's temporary folder whose process is gone (see above). */
export function removeTempFolders(): void {
  const tmp = os.tmpdir();
  for (const name of list(tmp)) {
    // A shared /tmp holds many entries: the pattern only for names that may be ours.
    if (!name.startsWith('svc-snapshot')) continue;
    const match = /^svc-snapshots?-(?:(\d+)-)?[A-Za-z0-9]{6}$/.exec(name);
    if (!match) continue;
    const folder = path.join(tmp, name);
    try {
      // Folders of earlier releases carry no pid: removed only when empty (rmdir refuses otherwise).
      if (match[1] === undefined) fs.rmdirSync(folder);
      else if (!isAlive(Number(match[1]))) fs.rmSync(folder, { recursive: true, force: true });
    } catch {
      // Not empty, not ours to remove, or gone meanwhile: left as it is.
    }
  }
}

function list(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
