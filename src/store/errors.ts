import path from 'node:path';
import { errorCode } from '../domain/caught.js';
import { UserError } from '../errors.js';

/**
 * Why a database file cannot be used: one line naming the file and the cause (CONTRACT §8). A
 * UserError, so `svc dev` prints the line and exits 1, with no stack trace.
 */
export class DatabaseFileError extends UserError {
  constructor(
    readonly file: string,
    detail: string,
    code = 'database_unusable',
  ) {
    super(`database ${shownPath(file)} ${detail}`, code);
  }
}

/** Another emulator holds the database (CONTRACT §8 "One emulator per database"). */
export class DatabaseInUseError extends DatabaseFileError {
  constructor(
    file: string,
    readonly owner: { by?: string; pid?: number; url?: string | null; host?: string; where?: 'this process' | 'this host' | 'elsewhere' } | null,
  ) {
    super(file, `is in use by ${describeOwner(owner)}`, 'database_in_use');
  }
}

function describeOwner(owner: DatabaseInUseError['owner']): string {
  if (!owner?.pid) return 'another process';
  const by = owner.by ?? 'another emulator';
  const where = owner.where ?? (owner.pid === process.pid ? 'this process' : 'this host');
  if (where === 'this process') return `${by} in this process`;
  // Its pid is another machine's or container's (two containers on one volume are both pid 1).
  if (where === 'elsewhere')
    return `${by} in another container or on another host (${owner.host ? `${owner.host}, ` : ''}its pid ${owner.pid}, ${owner.url ?? 'still starting'})`;
  return `${by} (pid ${owner.pid}, ${owner.url ?? 'still starting'})`;
}

/** The path as the user would type it: relative to the current folder when inside it. */
export function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** The SQLite result code of an error from better-sqlite3 (`SQLITE_BUSY`, `SQLITE_FULL`, …), if any. */
export function sqliteCode(error: unknown): string | undefined {
  const code = errorCode(error);
  return code?.startsWith('SQLITE_') ? code : undefined;
}

/** Another connection holds the write lock (after the wait), or it is recovering the log. */
export const isBusy = (error: unknown): boolean => /^SQLITE_BUSY/.test(sqliteCode(error) ?? '');

/**
 * Nothing more can be written: the disk is full (SQLITE_FULL), or a write failed (a size or quota
 * limit gives EFBIG or EDQUOT, which SQLite reports as SQLITE_IOERR_WRITE).
 */
export const isStorageFull = (error: unknown): boolean => /^SQLITE_(FULL|IOERR_WRITE|IOERR_FSYNC|IOERR_TRUNCATE)$/.test(sqliteCode(error) ?? '');
