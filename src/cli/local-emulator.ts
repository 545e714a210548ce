import fs from 'node:fs';
import path from 'node:path';
import { projectFolders } from '../config/find.js';
import type { DefaultKeys, EnvironmentKeys } from '../contract/default-keys.js';
import { isAlive } from '../pid.js';

/**
 * `svc dev` records where it listens and its default keys in `.svc/dev.json`, so every other
 * command run in the project (or below it) finds the emulator with no setup. With a control token
 * (CONTRACT §8), the token too: it guards loopback clients as well, and the file is mode 0600.
 */
export interface LocalEmulatorState {
  baseUrl: string;
  pid: number;
  startedAt: string;
  database: string;
  keys: DefaultKeys;
  /** The control token `svc dev` was started with, when there is one. */
  controlToken?: string;
}

export const STATE_DIR = '.svc';
export const STATE_FILE = 'dev.json';
/** A second `svc dev` in the folder (another replica on the same PostgreSQL database): `.svc/dev.<pid>.json`. */
const REPLICA_FILE = /^dev\.(\d+)\.json$/;

/**
 * Records `state` in `.svc/dev.json`, or, when that file describes another `svc dev` that is still
 * running (a replica on the same PostgreSQL database, or another database), in `.svc/dev.<pid>.json`
 * beside it, so that each is findable: commands use the first while it runs, then any other that
 * still does (issue 38). Returns the file written, and the other `svc dev` that holds `dev.json`, if
 * any. Files of `svc dev` processes that are gone (a SIGKILL leaves its file) are removed here.
 */
export function writeLocalState(cwd: string, state: LocalEmulatorState): { file: string; primary: LocalEmulatorState | null } {
  const dir = path.join(cwd, STATE_DIR);
  const main = path.join(dir, STATE_FILE);
  const current = readState(main);
  const primary = current && current.pid !== state.pid && isLiveSvcDev(current.pid) ? current : null;
  const file = primary ? path.join(dir, `dev.${state.pid}.json`) : main;
  fs.mkdirSync(dir, { recursive: true });
  for (const name of replicaFiles(dir)) {
    const other = readState(path.join(dir, name));
    if (other === null || (other.pid !== state.pid && !isLiveSvcDev(other.pid))) fs.rmSync(path.join(dir, name), { force: true });
  }
  // Written whole then renamed: a reader never sees half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return { file, primary };
}

/** The names of the replica files in a `.svc` folder (none when it cannot be read). */
function replicaFiles(dir: string): string[] {
  try {
    return fs.readdirSync(dir).filter((name) => REPLICA_FILE.test(name));
  } catch {
    return [];
  }
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
  const controlToken = Reflect.get(value, 'controlToken');
  if (typeof baseUrl !== 'string' || typeof pid !== 'number' || typeof startedAt !== 'string' || typeof database !== 'string' || keys === null) return null;
  if (controlToken !== undefined && typeof controlToken !== 'string') return null;
  return { baseUrl, pid, startedAt, database, keys, ...(controlToken === undefined ? {} : { controlToken }) };
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

/** Removes this process's state file (`dev.json` if it still describes this process, else its `dev.<pid>.json`). */
export function removeLocalState(cwd: string, pid = process.pid): void {
  const dir = path.join(cwd, STATE_DIR);
  for (const file of [path.join(dir, STATE_FILE), path.join(dir, `dev.${pid}.json`)]) {
    if (readState(file)?.pid === pid) fs.rmSync(file, { force: true });
  }
  try {
    // With --memory nothing else lives in .svc/: leave no trace. rmdir refuses a folder that is not empty.
    fs.rmdirSync(dir);
  } catch {
    // Not empty, already gone, or unreadable: nothing of ours to remove.
  }
}

/**
 * The `svc dev` to use from `cwd`: in the nearest folder from `cwd` up to the project root (never
 * above it, CONTRACT §8, as config files: a `svc dev` left running in /tmp or ~ silently redirected
 * every command below it, issue 22) that holds a `.svc/dev.json` or a replica's `.svc/dev.<pid>.json`,
 * the one in `dev.json` while it runs, else the earliest started replica that still runs (issue 38:
 * replica A died, B in the same folder still served). `running` says whether its pid is a live `svc
 * dev`; a stale one is for `svc status` to show, never a target (resolveTarget ignores it). Null when
 * there is none.
 */
export function findLocalState(cwd: string): { state: LocalEmulatorState; file: string; running: boolean } | null {
  for (const dir of projectFolders(cwd)) {
    const stateDir = path.join(dir, STATE_DIR);
    const main = path.join(stateDir, STATE_FILE);
    const replicas = replicaFiles(stateDir);
    if (!fs.existsSync(main) && replicas.length === 0) continue;
    const state = readState(main);
    if (state !== null && isLiveSvcDev(state.pid)) return { state, file: main, running: true };
    const live = replicas
      .map((name) => ({ file: path.join(stateDir, name), state: readState(path.join(stateDir, name)) }))
      .filter((r): r is { file: string; state: LocalEmulatorState } => r.state !== null && isLiveSvcDev(r.state.pid))
      .sort((a, b) => a.state.startedAt.localeCompare(b.state.startedAt));
    if (live[0]) return { ...live[0], running: true };
    return state === null ? null : { state, file: main, running: false };
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
