import fs from 'node:fs';
import path from 'node:path';
import type { DefaultKeys } from '../server/bootstrap.js';

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

/** The nearest `.svc/dev.json` from `cwd` up, with the file it came from; null when there is none. */
export function findLocalState(cwd: string): { state: LocalEmulatorState; file: string; running: boolean } | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const file = path.join(dir, STATE_DIR, STATE_FILE);
    if (fs.existsSync(file)) {
      try {
        const state = JSON.parse(fs.readFileSync(file, 'utf8')) as LocalEmulatorState;
        return { state, file, running: isAlive(state.pid) };
      } catch {
        return null;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
