import type { StoreKit } from './kit.js';
import { openSqliteKit } from './sqlite/kit.js';

export interface OpenStoreKitOptions {
  /** SQLite: a file path, or ':memory:' (the default). */
  db?: string;
  /** PostgreSQL: `postgres://user:password@host:5432/name` (CONTRACT §12). One of the two. */
  database?: string;
  /** SQLite: claim the file for this process's lifetime, in these words (CONTRACT §8). */
  claimAs?: string;
  /** Connections lost and found again (PostgreSQL): reported as warnings. */
  onWarning?: (message: string) => void;
}

/**
 * Where the store opens, and the one place an engine is chosen (ARCHITECTURE habit 14): a
 * PostgreSQL URL opens the PostgreSQL engine (loaded only then: a SQLite emulator never loads the
 * driver), anything else SQLite. Each engine's folder builds the kit the emulator runs on (./kit.ts).
 * A third engine is one folder with its kit, and a line here.
 */
export async function openStoreKit(options: OpenStoreKitOptions): Promise<StoreKit> {
  const url = options.database;
  if (url === undefined) return openSqliteKit({ file: options.db ?? ':memory:', ...(options.claimAs !== undefined ? { claimAs: options.claimAs } : {}) });
  if (options.db !== undefined) throw new TypeError('db and database are one choice: a SQLite file, or a PostgreSQL URL');
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new TypeError('database must be a PostgreSQL URL such as postgres://user:password@host:5432/name');
  const { openPostgresKit } = await import('./postgres/kit.js');
  return openPostgresKit({ url, ...(options.onWarning ? { onWarning: options.onWarning } : {}) });
}
