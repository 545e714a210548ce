import path from 'node:path';
import { DEFAULT_DATABASE } from '../../config/defaults.js';
import { UsageError } from '../../errors.js';
import { describePostgresUrl } from '../../store/describe-url.js';

/** Where `svc dev` keeps its state: a SQLite file (or memory), or a shared PostgreSQL database (CONTRACT §12). */
export type StorageChoice = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

/** What the banner, the ready event and .svc/dev.json show: the file, or the URL without its password. */
export function describeStorage(storage: StorageChoice): string {
  return storage.kind === 'postgres' ? describePostgresUrl(storage.url) : storage.file;
}

/** `startEmulator`'s option for it. */
export function storageOption(storage: StorageChoice): { db: string } | { database: string } {
  return storage.kind === 'postgres' ? { database: storage.url } : { db: storage.file };
}

/**
 * The warning for a password given on the command line (`--database postgres://user:secret@…`,
 * CONTRACT §12 "Trust only its own"): every local user reads a process's arguments (`ps`,
 * /proc/<pid>/cmdline). Null when the flag carries none (in the URL's user info or its query).
 */
export function passwordInFlagWarning(flag: string | undefined): string | null {
  if (flag === undefined || !isPostgresUrl(flag)) return null;
  let url: URL;
  try {
    url = new URL(flag);
  } catch {
    return null;
  }
  if (url.password === '' && !url.searchParams.has('password')) return null;
  return '--database carries a password, which every local user can read in /proc/<pid>/cmdline (ps shows it too): pass the URL in SVC_DATABASE_URL or the config file\'s "database" instead';
}

/** A PostgreSQL connection URL, as libpq and `pg` take it. */
export const isPostgresUrl = (value: string): boolean => /^postgres(ql)?:\/\//i.test(value);

interface StorageOptions {
  db?: string | undefined;
  memory?: boolean | undefined;
  database?: string | undefined;
}

/**
 * The storage from the merged options (flags over SVC_DB / SVC_MEMORY / SVC_DATABASE_URL) and the
 * config file's `database` (a file path, or a postgres:// URL). `--database` takes only PostgreSQL
 * URLs and `--db` only files, so that a typo never silently picks the other engine; naming both is
 * a usage error rather than a guess at which one was meant.
 */
export function chooseStorage(cwd: string, options: StorageOptions, configDatabase: string | undefined, defaultFile = DEFAULT_DATABASE): StorageChoice {
  if (options.database !== undefined) {
    if (!isPostgresUrl(options.database)) {
      throw new UsageError('--database takes a PostgreSQL URL such as postgres://user:password@host:5432/name (a SQLite file is --db)', '--database');
    }
    if (options.db !== undefined || options.memory) throw new UsageError('--database and --db/--memory are one choice: give one of them', '--database');
    return { kind: 'postgres', url: options.database };
  }
  if (options.memory) return { kind: 'sqlite', file: ':memory:' };
  if (options.db !== undefined) return { kind: 'sqlite', file: path.resolve(cwd, options.db) };
  if (configDatabase !== undefined && isPostgresUrl(configDatabase)) return { kind: 'postgres', url: configDatabase };
  const file = configDatabase ?? defaultFile;
  return { kind: 'sqlite', file: file === ':memory:' ? file : path.resolve(cwd, file) };
}
