import fs from 'node:fs';
import path from 'node:path';
import { projectFolders } from '../config/find.js';
import type { DefaultKeys } from '../server/bootstrap.js';
import { isAlive } from '../pid.js';

/**
 * `svc dev` records where it listens and its default keys in `.svc/dev.json`, so every other
 * command run in the project (or below it) finds the emulator with no setup.
 */
export interface LocalEmulatorState {
  baseUrl: string;
  pid: number;
  startedAt: string;
  database: string;
  keys: DefaultKeys;
}

export const STATE_DIR = '.svc';
export const STATE_FILE = 'dev.json';

/**
 * Records `state` in `.svc/dev.json`, unless the file describes another `svc dev` that is still
 * running (on another database, or in memory): that one is returned and its file left alone.
 */
export function writeLocalState(cwd: string, state: LocalEmulatorState): LocalEmulatorState | null {
  const file = path.join(cwd, STATE_DIR, STATE_FILE);
  const current = readState(file);
  if (current && current.pid !== state.pid && isAlive(current.pid)) return current;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Written whole then renamed: a reader never sees half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return null;
}

function readState(file: string): LocalEmulatorState | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as LocalEmulatorState;
  } catch {
    return null;
  }
}

/** Removes the state file if it still describes this process (another `svc dev` may have replaced it). */
export function removeLocalState(cwd: string, pid = process.pid): void {
  const file = path.join(cwd, STATE_DIR, STATE_FILE);
  try {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as LocalEmulatorState;
    if (state.pid !== pid) return;
    fs.rmSync(file, { force: true });
    // With --memory nothing else lives in .svc/: leave no trace. rmdir refuses a folder that is not empty.
    fs.rmdirSync(path.dirname(file));
  } catch {
    // Already gone, or unreadable: nothing of ours to remove.
  }
}

/**
 * The nearest `.svc/dev.json` from `cwd` up to the project root, never above it (CONTRACT §8, as
 * config files): a `svc dev` left running in /tmp or ~ silently redirected every command below it
 * (issue 22). `running` says whether its pid is a live `svc dev`; a stale one is for `svc status` to
 * show, never a target (resolveTarget ignores it). Null when there is none.
 */
export function findLocalState(cwd: string): { state: LocalEmulatorState; file: string; running: boolean } | null {
  for (const dir of projectFolders(cwd)) {
    const file = path.join(dir, STATE_DIR, STATE_FILE);
    if (fs.existsSync(file)) {
      try {
        const state = JSON.parse(fs.readFileSync(file, 'utf8')) as LocalEmulatorState;
        return { state, file, running: isLiveSvcDev(state.pid) };
      } catch {
        return null;
      }
    }
  }
  return null;
}

/**
 * Whether `pid` is a running `svc dev`. A pid outlives its process in a stale file and is reused by
 * the system; where /proc shows the command line (Linux), it must be svc's `dev` command.
 */
function isLiveSvcDev(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isAlive(pid)) return false;
  let argv: string[];
  try {
    argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return true; // No /proc (macOS), or not ours to read: alive is all we can know.
  }
  return argv.includes('dev') && argv.some((a) => a.includes('svc'));
}
