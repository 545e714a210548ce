import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { DatabaseFileError, sqliteCode } from './errors.js';
import { MIGRATION_TABLE, recorded } from './migrate.js';
import { migrations, SVC_APPLICATION_ID } from './migrations/index.js';
import { openSqlite } from './sqlite.js';
import { errorCode, errorMessage } from '../domain/caught.js';
import { textColumn } from './row.js';

/** Every table any svc release created; a database holding only these (and no application id) is ours. */
const SVC_TABLES = new Set([
  'meta',
  'partners',
  'api_keys',
  'merchants',
  'invoices',
  'webhook_configs',
  'idempotency_keys',
  'payments',
  'events',
  'deliveries',
  'delivery_attempts',
  'listeners',
  MIGRATION_TABLE,
  'kysely_migration_lock',
]);

/** Above this size the full structural check would delay the start by seconds: only the schema is read. */
const QUICK_CHECK_MAX_BYTES = 256 * 1024 * 1024;

export type FileState = 'missing' | 'ours';

/**
 * Decides, without changing the file, whether `file` can be opened as the emulator's database
 * (CONTRACT §8 "Not our database"): it is missing (it will be created), or an svc database, or
 * an empty file. Anything else is a DatabaseFileError naming the file and the cause.
 *
 * Checks run on a read-only connection, before any read-write one: opening read-write would already
 * switch someone else's database to WAL. No file descriptor of ours touches the file outside SQLite
 * (closing one would drop the POSIX locks SQLite holds on it, were it open elsewhere in this process).
 */
export function checkDatabaseFile(file: string): FileState {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return checkFolder(file);
    if (code === 'ENOTDIR') throw new DatabaseFileError(file, 'cannot be created: a parent of it is a file, not a folder');
    throw new DatabaseFileError(file, `cannot be read (${describeErrno(error)})`);
  }
  if (stat.isDirectory()) throw new DatabaseFileError(file, 'is a folder, not a database file');
  if (!stat.isFile()) throw new DatabaseFileError(file, 'is not a regular file');
  if (!canAccess(file, fs.constants.R_OK)) throw new DatabaseFileError(file, 'cannot be read (permission denied)');
  if (!canAccess(file, fs.constants.W_OK)) throw new DatabaseFileError(file, 'is read-only (permission denied for writing)');
  if (!canAccess(path.dirname(file), fs.constants.W_OK)) {
    throw new DatabaseFileError(file, `cannot be written: its folder ${path.dirname(file)} is read-only (SQLite keeps its log next to the file)`);
  }
  if (stat.size === 0) return 'ours';

  let db: BetterSqlite3.Database | undefined;
  const removeSidecars = sidecarsCreatedBy(file);
  try {
    db = openReadOnly(file);
    const applicationId = Number(db.pragma('application_id', { simple: true }));
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all()
      .map((r) => textColumn(r, 'name'));
    if (applicationId !== SVC_APPLICATION_ID) refuseForeign(file, applicationId, tables);
    const unknown = recorded(db).filter((name) => !(name in migrations));
    if (unknown.length) throw new DatabaseFileError(file, `was made by a newer version of svc (unknown migrations: ${unknown.join(', ')}); upgrade svc`);
    if (stat.size <= QUICK_CHECK_MAX_BYTES) {
      const result = db.pragma('quick_check');
      const problems = Array.isArray(result) ? result.map((r) => textColumn(r, 'quick_check')) : [String(result)];
      if (problems[0] !== 'ok') throw new DatabaseFileError(file, `is corrupt (${problems[0]})`, 'database_corrupt');
    }
    return 'ours';
  } catch (error) {
    db?.close();
    db = undefined;
    removeSidecars();
    if (error instanceof DatabaseFileError) throw error;
    throw new DatabaseFileError(file, describeSqliteFailure(error), codeFor(error));
  } finally {
    db?.close();
  }
}

/**
 * A read-only connection, after recovery if the file needs one. A process killed inside a rollback-
 * journal transaction (a fresh file being switched to WAL, say) leaves a hot journal that a reader
 * must roll back before it can read, and a read-only connection cannot: SQLite then fails with
 * SQLITE_READONLY_ROLLBACK. A read-write connection opened just to read once does that recovery,
 * which any SQLite program would also do first; it restores the last committed state and changes
 * nothing else.
 */
function openReadOnly(file: string): BetterSqlite3.Database {
  const open = () => openSqlite(file, { readonly: true, fileMustExist: true, timeout: 5000 });
  let db = open();
  try {
    db.pragma('schema_version');
    return db;
  } catch (error) {
    db.close();
    if (!/^SQLITE_READONLY_(ROLLBACK|RECOVERY|CANTINIT)$/.test(sqliteCode(error) ?? '')) throw error;
  }
  const recover = openSqlite(file, { fileMustExist: true, timeout: 5000 });
  try {
    recover.pragma('schema_version');
  } finally {
    recover.close();
  }
  db = open();
  return db;
}

/**
 * A read-only connection to a WAL database creates its -wal and -shm files and, being read-only,
 * leaves them behind. When the file is refused, the ones this look created are removed, so that its
 * folder is as it was. (Only then: an accepted file is opened for real at once, and uses them.)
 */
function sidecarsCreatedBy(file: string): () => void {
  const created = [`${file}-wal`, `${file}-shm`].filter((f) => !fs.existsSync(f));
  return () => {
    for (const f of created) if (fs.existsSync(f) && (!f.endsWith('-wal') || fs.statSync(f).size === 0)) fs.rmSync(f, { force: true });
  };
}

/**
 * A database without svc's application id is ours only when it was made by an earlier svc release:
 * no application id, a migration record, and no table svc never created. An empty one is fresh.
 */
function refuseForeign(file: string, applicationId: number, tables: string[]): void {
  if (applicationId === 0) {
    if (tables.length === 0) return;
    const foreign = tables.filter((t) => !SVC_TABLES.has(t));
    if (foreign.length === 0 && tables.includes(MIGRATION_TABLE)) return;
    const listed = foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? ', …' : '');
    throw new DatabaseFileError(file, `is not an svc database (it has tables svc never creates: ${listed}); it was left unchanged`, 'database_foreign');
  }
  const hex = `0x${(applicationId >>> 0).toString(16).padStart(8, '0')}`;
  throw new DatabaseFileError(file, `is not an svc database (its application_id is ${hex}); it was left unchanged`, 'database_foreign');
}

/** A missing file will be created: its folder must be creatable and writable. */
function checkFolder(file: string): FileState {
  let dir = path.dirname(file);
  while (!fs.existsSync(dir)) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) throw new DatabaseFileError(file, `cannot be created: ${dir} is a file, not a folder`);
  if (!canAccess(dir, fs.constants.W_OK)) throw new DatabaseFileError(file, `cannot be created: ${dir} is not writable`);
  return 'missing';
}

function canAccess(file: string, mode: number): boolean {
  try {
    fs.accessSync(file, mode);
    return true;
  } catch {
    return false;
  }
}

function describeErrno(error: unknown): string {
  const code = errorCode(error);
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return code ?? errorMessage(error);
}

/** The cause, in words, of a failure to read a database file. */
export function describeSqliteFailure(error: unknown): string {
  switch (sqliteCode(error)) {
    case 'SQLITE_NOTADB':
      return 'is not an SQLite database';
    case 'SQLITE_CORRUPT':
    case 'SQLITE_CORRUPT_VTAB':
    case 'SQLITE_CORRUPT_SEQUENCE':
    case 'SQLITE_CORRUPT_INDEX':
      return `is corrupt (${errorMessage(error)})`;
    case 'SQLITE_CANTOPEN':
      return 'cannot be opened (permission denied, or its folder is not accessible)';
    case 'SQLITE_READONLY':
      return 'is read-only';
    case 'SQLITE_BUSY':
    case 'SQLITE_BUSY_RECOVERY':
      return 'is locked by another program (for more than 5 s)';
    case 'SQLITE_IOERR_SHORT_READ':
      return 'is truncated (it ends before its last page)';
    default:
      return `cannot be used: ${errorMessage(error)}`;
  }
}

function codeFor(error: unknown): string {
  const code = sqliteCode(error) ?? '';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_IOERR_SHORT_READ') return 'database_corrupt';
  if (code === 'SQLITE_NOTADB') return 'database_foreign';
  return 'database_unusable';
}
