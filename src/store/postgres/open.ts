import { sql } from 'kysely';
import { UserError } from '../../errors.js';
import { errorMessage } from '../../domain/caught.js';
import { MigrationError, UnknownMigrationsError } from '../migrate.js';
import { describePostgresUrl } from '../describe-url.js';
import { openPostgresHandle, type PostgresStoreDb, postgresDb } from './engine.js';
import type { PgHandle } from './handle.js';
import { ForeignDatabaseError } from './migrate.js';
import { isDatabaseUnavailable } from './unavailable.js';
import { DamagedSchemaError } from './schema-check.js';
import { ChangeChannel, notifyKey } from './notify.js';

/**
 * Why a PostgreSQL database cannot be used (CONTRACT §12): one line naming it without its password,
 * `svc dev` exits 1 (a UserError, no stack).
 */
export class PostgresDatabaseError extends UserError {
  constructor(url: string, detail: string, code: string) {
    super(`database ${describePostgresUrl(url)} ${detail}`, code);
  }
}

export interface OpenPostgresOptions {
  url: string;
  /** Told when an idle connection is lost (the emulator reports it; the pool reconnects by itself). */
  onIdleError?: (error: Error) => void;
  /** Told when the change channel (notify.ts) loses its connection, and when it is back. */
  onChannelWarning?: (message: string) => void;
}

/**
 * Connects, migrates (once across replicas, under the advisory lock) and returns the store. Refuses,
 * unchanged, another application's database or a newer svc's; an unreachable server is one line.
 */
export async function openPostgresDb(options: OpenPostgresOptions): Promise<PostgresStoreDb> {
  let handle: PgHandle;
  try {
    handle = await openPostgresHandle({ url: options.url, ...(options.onIdleError ? { onIdleError: options.onIdleError } : {}) });
  } catch (error) {
    throw refusal(options.url, error);
  }
  // After the migration: LISTEN needs nothing of the schema, but a refused database needs no channel.
  let changes: ChangeChannel;
  let key: string;
  try {
    key = await notifyKey(handle);
    changes = new ChangeChannel({ url: options.url, key, ...(options.onChannelWarning ? { onWarning: options.onChannelWarning } : {}) });
    await changes.open();
  } catch (error) {
    await handle.destroy();
    throw refusal(options.url, error);
  }
  return postgresDb(handle, changes, key);
}

function refusal(url: string, error: unknown): Error {
  if (error instanceof ForeignDatabaseError) return new PostgresDatabaseError(url, error.message, 'database_foreign');
  if (error instanceof DamagedSchemaError) return new PostgresDatabaseError(url, error.message, 'database_damaged');
  if (error instanceof UnknownMigrationsError) {
    return new PostgresDatabaseError(url, `was made by a newer version of svc (${error.message}); it was left unchanged`, 'database_unusable');
  }
  if (error instanceof MigrationError)
    return new PostgresDatabaseError(url, `could not be migrated: ${error.message} (nothing was changed)`, 'database_migration_failed');
  // The driver's message may quote the URL it was given: never pass on the password.
  const reason = scrub(errorMessage(error), url);
  if (isDatabaseUnavailable(error)) return new PostgresDatabaseError(url, `is unreachable (${reason})`, 'database_unreachable');
  return new PostgresDatabaseError(url, `cannot be used (${reason})`, 'database_unusable');
}

/** `message` without the URL's password, wherever it appears. */
export function scrub(message: string, url: string): string {
  let password = '';
  try {
    const parsed = new URL(url);
    password = decodeURIComponent(parsed.password || parsed.searchParams.get('password') || '');
  } catch {}
  return password ? message.split(password).join('***') : message;
}

/** One raw SQL statement, rows as objects: our tests' engine-neutral view (server/internals.ts). */
export async function postgresQuery(db: PostgresStoreDb, text: string): Promise<Record<string, unknown>[]> {
  return (await sql.raw<Record<string, unknown>>(text).execute(db.handle)).rows;
}
