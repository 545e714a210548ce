import { sql } from 'kysely';
import type { PgHandle } from './repos/handle.js';
import { DATA_TABLES } from './tables.js';

/**
 * Empties the data tables (`POST /__emulator/reset`) in one TRUNCATE: one statement, so other
 * replicas see all of the state or none of it, and its cost does not grow with the rows (a DELETE
 * visits each; CONTRACT §8 "reset is bounded"). `meta` (the identity, the clock), the migration
 * record and the named snapshots stay. Identity sequences are not restarted, as SQLite's
 * AUTOINCREMENT is not: a seq handed out once is never handed out again.
 *
 * TRUNCATE waits for an ACCESS EXCLUSIVE lock: behind transactions that touch these tables, which
 * are short on svc's side (one request's work), and it holds other replicas' readers until it commits.
 */
export async function clearPostgresData(db: PgHandle): Promise<void> {
  await sql`TRUNCATE ${sql.join(DATA_TABLES.map((t) => sql.table(t)))}`.execute(db);
}
