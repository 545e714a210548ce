import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * What PostgreSQL's statements run on: the pool's `Kysely` (each statement commits on its own) or
 * a `Transaction` (which extends it). The table types are SQLite's (src/store/schema.ts): the
 * columns hold the same values (migrations/0001-initial.ts), int8 read back as numbers (connect.ts).
 */
export type PgHandle = Kysely<Database>;

/** The SQLSTATE of a failed statement (`23505` unique violation, …), if the error is PostgreSQL's. */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) ? error.code : undefined;
}

/** How many rows an update or delete touched (kysely answers a bigint). */
export const touched = (result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }): number => Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0n);
