import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { DatabaseFileError, DatabaseInUseError, isBusy, shownPath } from '../errors.js';
import { openSqlite } from '../sqlite.js';
import { errorCode, errorMessage } from '../../domain/caught.js';
import { isAlive } from '../../pid.js';
import { osUuid } from '../../domain/os-random.js';

/** Who holds a database, as a second emulator reads it to say so. */
export interface ClaimOwner {
  /** What holds it, in the words of the message: `svc dev`, `startEmulator`. */
  by: string;
  pid: number;
  /** The base URL once the emulator listens; null while it starts. */
  url: string | null;
  startedAt: string;
  /**
   * This process among all that may share the file: a pid alone is not enough once containers on one
   * volume each run svc as pid 1 (issue 40). Absent in files of earlier releases.
   */
  instance?: string;
  /** The machine's (or container's) host name, for the message. */
  host?: string;
}

/**
 * This process's instance id (ClaimOwner.instance), drawn by its first claim: an in-memory emulator
 * never claims, and its start stays without node:crypto (domain/os-random.ts).
 */
let instance: string | undefined;
const instanceId = (): string => (instance ??= osUuid());

export interface Claim {
  /** Records the URL for the next one who finds the database taken. */
  setUrl(url: string): void;
  /** Gives the database up (also done by the OS when the process dies). */
  release(): void;
}

/**
 * One emulator per database (CONTRACT §8). Node has no flock, but SQLite's locks are POSIX locks that
 * die with the process: the claim is an EXCLUSIVE lock on `<db>-lock`, a small SQLite file of its own,
 * held by a dedicated connection for the emulator's lifetime. A second emulator fails to take it
 * within CONTENDED_MS and reads the owner from `<db>-lock.json`, written by the holder once it has
 * the lock.
 *
 * The lock file is never deleted: removing a path someone else may hold open would let two processes
 * lock two different files of the same name. `journal_mode = MEMORY` keeps SQLite from creating a
 * journal next to it.
 *
 * `<db>-lock` is found by name, so a hard link, a symlink or a single-file bind mount of the database
 * has a lock of its own (issue 22: two emulators, two WALs, lost creates). The claim also holds the
 * database file itself: see holdDatabaseFile.
 */
/**
 * How long a claim waits for the lock: two emulators started at the same moment each hold the lock
 * file's SHARED lock for an instant while they open it, and without any wait each saw the other's and
 * both gave up, neither serving (3 rounds in 40 once start-up got faster). A real holder keeps the
 * lock, so the wait only delays the loser's message.
 */
const CONTENDED_MS = 200;

export function claimDatabase(file: string, by: string): Claim {
  const lockFile = `${file}-lock`;
  const infoFile = `${file}-lock.json`;
  try {
    // Created 0600 only when missing; an existing one is never opened outside SQLite (closing our own
    // descriptor would drop the locks SQLite holds on it in this process).
    fs.closeSync(fs.openSync(lockFile, 'wx', 0o600));
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') {
      throw new DatabaseFileError(file, `cannot be claimed: ${lockFile} cannot be created (${errorCode(error) ?? String(error)})`);
    }
  }
  let lock: BetterSqlite3.Database | undefined;
  try {
    lock = openSqlite(lockFile, { timeout: CONTENDED_MS });
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock?.close();
    if (isBusy(error)) throw new DatabaseInUseError(file, placed(awaitOwner(infoFile)));
    throw new DatabaseFileError(file, `cannot be claimed: ${lockFile}: ${errorMessage(error)}`);
  }

  let heldFile: BetterSqlite3.Database;
  try {
    heldFile = holdDatabaseFile(file);
  } catch (error) {
    lock.close();
    throw error;
  }

  const owner: ClaimOwner = { by, pid: process.pid, url: null, startedAt: new Date().toISOString(), instance: instanceId(), host: os.hostname() };
  // A full disk at a restart failed here with "unexpected error ENOSPC" and a stack (issue 22): it is
  // the user's to fix, so one line naming the file and the cause.
  const write = () => {
    const tmp = `${infoFile}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(tmp, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
      fs.renameSync(tmp, infoFile);
    } catch (error) {
      fs.rmSync(tmp, { force: true });
      throw new DatabaseFileError(file, `cannot be claimed: ${shownPath(infoFile)} cannot be written (${writeFailure(error)})`);
    }
  };
  try {
    write();
  } catch (error) {
    heldFile.close();
    lock.close();
    throw error;
  }
  let held = true;
  return {
    setUrl(url) {
      owner.url = url;
      if (held) write();
    },
    release() {
      if (!held) return;
      held = false;
      // The owner file first, while the lock still keeps everyone else from writing theirs.
      if (readOwner(infoFile)?.instance === instanceId()) fs.rmSync(infoFile, { force: true });
      // Closed after the store's connection (store.close), so this last one checkpoints the WAL.
      heldFile.close();
      lock.close();
    },
  };
}

/**
 * The claim on the database file itself, which follows the file (its inode) and not its name: SQLite's
 * POSIX locks are taken on the open file, and a hard link, a symlink or a bind mount opens the same one.
 * A connection in WAL mode holds a SHARED lock on the database file for as long as it is open. The
 * claim takes the file's EXCLUSIVE lock once (refused while any other connection has the file open:
 * another emulator through any path), then drops it to SHARED without letting go (an fcntl lock
 * change is atomic) and keeps that connection open: every later claim's EXCLUSIVE is refused, while
 * the store's own connection and tools (readers, `BEGIN IMMEDIATE` writers) are not affected.
 *
 * The first read is in NORMAL mode so that the WAL index is the shared `-shm` file: a WAL first opened
 * under `locking_mode = EXCLUSIVE` lives in heap memory and can never leave exclusive mode. A missing
 * file is created 0600 first (SQLite would create it with the umask's mode).
 */
const UNKNOWN_HOLDER = 'an svc dev through another path to this file, or a program such as sqlite3 that has it open';

function holdDatabaseFile(file: string): BetterSqlite3.Database {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') {
      throw new DatabaseFileError(file, `cannot be created (${errorCode(error) ?? String(error)})`);
    }
  }
  let held: BetterSqlite3.Database | undefined;
  try {
    held = openSqlite(file, { timeout: CONTENDED_MS, fileMustExist: true });
    held.pragma('journal_mode = WAL');
    held.prepare('SELECT count(*) FROM sqlite_master').get();
    held.pragma('locking_mode = EXCLUSIVE');
    held.exec('BEGIN IMMEDIATE');
    held.exec('COMMIT');
    held.pragma('locking_mode = NORMAL');
    held.exec('BEGIN IMMEDIATE');
    held.exec('COMMIT');
    return held;
  } catch (error) {
    held?.close();
    if (isBusy(error)) {
      const owner = awaitOwner(() => findOwnerElsewhere(file));
      if (owner) throw new DatabaseInUseError(file, placed(owner));
      // No svc owner to be found from this path: another svc dev through a far name, or any program
      // that has the file open (a claim cannot tell them apart). Say both.
      throw new DatabaseFileError(file, `is in use by another process (${UNKNOWN_HOLDER})`, 'database_in_use');
    }
    throw new DatabaseFileError(file, `cannot be claimed: ${errorMessage(error)}`);
  }
}

/**
 * The owner of a database held through another name. Its owner file sits next to the name the holder
 * used: the symlink's target, or a sibling hard link in the same folder. A hard link elsewhere or a
 * bind mount from another mount namespace has no owner file to be found: the refusal then says
 * "another process" and what it may be.
 */
function findOwnerElsewhere(file: string): ClaimOwner | null {
  try {
    const real = fs.realpathSync(file);
    const here = fs.statSync(real);
    const dir = path.dirname(real);
    const candidates = [
      `${real}-lock.json`,
      ...fs
        .readdirSync(dir)
        .filter((n) => n.endsWith('-lock.json'))
        .map((n) => path.join(dir, n)),
    ];
    for (const infoFile of candidates) {
      const db = infoFile.slice(0, -'-lock.json'.length);
      const other = fs.statSync(db, { throwIfNoEntry: false });
      if (other?.ino !== here.ino || other.dev !== here.dev) continue;
      const owner = readOwner(infoFile);
      if (owner) return owner;
    }
  } catch {
    // A folder we cannot list: the refusal still names the database.
  }
  return null;
}

/**
 * Where the owner runs, for the message: this process, or (another instance whose pid is ours, or
 * whose host name is not ours) another container or host, where its pid means nothing here.
 */
function placed(owner: ClaimOwner | null): (ClaimOwner & { where: 'this process' | 'elsewhere' | 'this host' }) | null {
  if (owner === null) return null;
  if (owner.instance === undefined) return { ...owner, where: owner.pid === process.pid ? 'this process' : 'this host' };
  if (owner.instance === instanceId()) return { ...owner, where: 'this process' };
  return { ...owner, where: owner.pid === process.pid || (owner.host !== undefined && owner.host !== os.hostname()) ? 'elsewhere' : 'this host' };
}

/** Why a small file could not be written, in words: a full disk first. */
function writeFailure(error: unknown): string {
  const code = errorCode(error);
  if (code === 'ENOSPC') return 'the disk is full';
  if (code === 'EDQUOT') return 'the disk quota is exhausted';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return code ?? String(error);
}

/**
 * The holder writes its owner file just after it takes the lock: a second emulator started at the same
 * moment can find the lock taken and the file not yet written. Look again for a moment (a start is
 * synchronous here, so the wait is too) before saying only "another process".
 */
function awaitOwner(find: string | (() => ClaimOwner | null), waitMs = 2000): ClaimOwner | null {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; ; waited += 25) {
    const owner = typeof find === 'string' ? readOwner(find) : find();
    if (owner || waited >= waitMs) return owner;
    Atomics.wait(pause, 0, 0, 25);
  }
}

function readOwner(infoFile: string): ClaimOwner | null {
  try {
    const owner = claimOwnerFrom(JSON.parse(fs.readFileSync(infoFile, 'utf8')));
    // Another host's or container's pid says nothing here: the lock it holds is what counts.
    const elsewhere = owner?.host !== undefined && owner.host !== os.hostname();
    return owner && (elsewhere || isAlive(owner.pid)) ? owner : null;
  } catch {
    return null;
  }
}

/**
 * An owner file as read back: another process wrote it, so its shape is checked, not assumed. Only
 * `pid` is needed to trust it (as before this check); the words of the message fall back when absent.
 * Hand-written rather than zod: this runs on `svc dev`'s start-up path, which does not load zod.
 */
function claimOwnerFrom(value: unknown): ClaimOwner | null {
  if (typeof value !== 'object' || value === null || !('pid' in value) || typeof value.pid !== 'number') return null;
  const text = (key: string): string | undefined => {
    const field: unknown = Reflect.get(value, key);
    return typeof field === 'string' ? field : undefined;
  };
  const instance = text('instance');
  const host = text('host');
  return {
    by: text('by') ?? 'another emulator',
    pid: value.pid,
    url: text('url') ?? null,
    startedAt: text('startedAt') ?? '',
    ...(instance === undefined ? {} : { instance }),
    ...(host === undefined ? {} : { host }),
  };
}
