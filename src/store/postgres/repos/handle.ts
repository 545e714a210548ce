import type { Kysely } from 'kysely';
import type { Database } from '../../schema.js';

/**
 * What PostgreSQL's repositories run on: the pool's `Kysely` (each statement commits on its own) or
 * a `Transaction` (which extends it). The table types are SQLite's (src/store/schema.ts): the
 * columns hold the same values (migrations/0001-initial.ts), int8 read back as numbers (connect.ts).
 */
export type PgHandle = Kysely<Database>;

/** The SQLSTATE of a failed statement (`23505` unique violation, …), if the error is PostgreSQL's. */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) ? error.code : undefined;
}

/** The constraint a PostgreSQL error names (pg's `constraint` field), if any. */
export function constraintOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('constraint' in error)) return undefined;
  return typeof error.constraint === 'string' ? error.constraint : undefined;
}

/** How many rows an update or delete touched (kysely answers a bigint). */
export const touched = (result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }): number => Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0n);

/**
 * `value` as a member of a closed list. SQLite's repos take some statuses as plain strings and bind
 * them as they are; the table types here are the closed lists, so a value outside one is refused
 * (naming the column) rather than cast into it.
 */
export function oneOf<const L extends readonly string[]>(list: L, value: string, column: string): L[number] {
  const found = list.find((item) => item === value);
  if (found === undefined) throw new Error(`svc bug: ${JSON.stringify(value)} is not a ${column}`);
  return found;
}

/**
 * Whether `text` holds U+0000, which PostgreSQL's text cannot (a statement given one fails, SQLSTATE
 * 22021). No stored value holds one, so the lookups a request can reach (a path's id, a cursor) find
 * nothing by such a value without asking (the repositories, the journal's reads): the request is
 * the 404 SQLite answers, not a 500 (GET /v1/partner/invoices/%00). Bodies holding one are refused before (server/validation/storable-text.ts).
 */
export const holdsNul = (text: string): boolean => text.includes('\0');
