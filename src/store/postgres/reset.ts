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
  await holdResetLock(db);
  await sql`TRUNCATE ${sql.join(DATA_TABLES.map((t) => sql.table(t)))}`.execute(db);
}

/**
 * A reset holds this advisory lock (one per database) alone; every other transaction shares it,
 * from its first statement. TRUNCATE takes its tables' locks one after another, so a create holding
 * `invoices` and waiting for `events` (already the TRUNCATE's) deadlocked with it, and PostgreSQL
 * failed one of them: a 500 (issue 27). With the lock, the TRUNCATE starts once the transactions in
 * flight ended, and the next ones wait before they touch a table. Statements outside a transaction
 * are single reads and writes, over in a moment, which TRUNCATE simply waits for.
 */
const RESET_LOCK = 0x737663; // 'svc'

/** The first statement of every transaction but a reset's (engine.ts). */
export async function shareResetLock(trx: PgHandle): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock_shared(${sql.lit(RESET_LOCK)})`.execute(trx);
}

/** The reset lock alone, for this transaction: before any TRUNCATE of the data (a reset, a restore). */
export async function holdResetLock(trx: PgHandle): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${sql.lit(RESET_LOCK)})`.execute(trx);
}
