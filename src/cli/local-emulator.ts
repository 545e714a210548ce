import fs from 'node:fs';
import path from 'node:path';
import { projectFolders } from '../config/find.js';
import type { DefaultKeys, EnvironmentKeys } from '../contract/default-keys.js';
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

/** The state file's record, or null when it is missing, not JSON, or of another shape (then it is not ours to trust). */
function readState(file: string): LocalEmulatorState | null {
  try {
    return localStateOf(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    return null;
  }
}

/**
 * A parsed `.svc/dev.json`, checked by looking (no zod: every command's start-up reads this file).
 * Another program or an older svc may have written it, and its `pid` decides what is signalled.
 */
export function localStateOf(value: unknown): LocalEmulatorState | null {
  if (typeof value !== 'object' || value === null) return null;
  const baseUrl = Reflect.get(value, 'baseUrl');
  const pid = Reflect.get(value, 'pid');
  const startedAt = Reflect.get(value, 'startedAt');
  const database = Reflect.get(value, 'database');
  const keys = keysOf(Reflect.get(value, 'keys'));
  if (typeof baseUrl !== 'string' || typeof pid !== 'number' || typeof startedAt !== 'string' || typeof database !== 'string' || keys === null) return null;
  return { baseUrl, pid, startedAt, database, keys };
}

function keysOf(value: unknown): DefaultKeys | null {
  if (typeof value !== 'object' || value === null) return null;
  const partnerId = Reflect.get(value, 'partnerId');
  const test = environmentKeysOf(Reflect.get(value, 'test'));
  const live = environmentKeysOf(Reflect.get(value, 'live'));
  return typeof partnerId === 'string' && test !== null && live !== null ? { partnerId, test, live } : null;
}

function environmentKeysOf(value: unknown): EnvironmentKeys | null {
  if (typeof value !== 'object' || value === null) return null;
  const partnerKey = Reflect.get(value, 'partnerKey');
  const merchantKey = Reflect.get(value, 'merchantKey');
  const merchantId = Reflect.get(value, 'merchantId');
  if (typeof partnerKey !== 'string' || typeof merchantKey !== 'string' || typeof merchantId !== 'string') return null;
  return { partnerKey, merchantKey, merchantId };
}

/** Removes the state file if it still describes this process (another `svc dev` may have replaced it). */
export function removeLocalState(cwd: string, pid = process.pid): void {
  const file = path.join(cwd, STATE_DIR, STATE_FILE);
  try {
    const state = readState(file);
    if (state === null || state.pid !== pid) return;
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
      const state = readState(file);
      return state === null ? null : { state, file, running: isLiveSvcDev(state.pid) };
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
