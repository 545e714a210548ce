import { CompiledQuery, type Driver, PostgresDialect, sql } from 'kysely';
import type { PgHandle } from './handle.js';
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

/** The reset lock alone, for this transaction: before any TRUNCATE of the data (a reset, a restore). */
export async function holdResetLock(trx: PgHandle): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${sql.lit(RESET_LOCK)})`.execute(trx);
}

/**
 * PostgreSQL's dialect with one change: a transaction begun without settings (every one the store
 * opens, engine.ts) shares the reset lock from its start. BEGIN and the lock are one text, sent as
 * one simple query (one round trip). Transactions begun with an isolation level or access mode are
 * the few that must not share it: a reset's and a restore's (which hold it alone, naming READ
 * COMMITTED, the default, for that) and an export's (read-only).
 */
export class ResetSharingDialect extends PostgresDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const begin = driver.beginTransaction.bind(driver);
    driver.beginTransaction = async (connection, settings) => {
      if (settings.isolationLevel || settings.accessMode) return begin(connection, settings);
      try {
        await connection.executeQuery(BEGIN_SHARING);
      } catch (error) {
        // kysely rolls back only a transaction whose begin succeeded: a BEGIN that went through
        // before the lock failed must not go back to the pool open (and aborted).
        await connection.executeQuery(CompiledQuery.raw('ROLLBACK')).catch(() => {});
        throw error;
      }
    };
    return driver;
  }
}

const BEGIN_SHARING = CompiledQuery.raw(`BEGIN; SELECT pg_advisory_xact_lock_shared(${RESET_LOCK})`);

/** How a transaction that holds the reset lock alone begins (it names the default level: see above). */
export const HOLDING = 'read committed';
