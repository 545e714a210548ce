import { type Kysely, type Migration, type QueryExecutorProvider, sql } from 'kysely';
import { MIGRATION_TABLE, MigrationError, UnknownMigrationsError } from '../migrate.js';
import { postgresMigrations } from './migrations/index.js';

/**
 * The key of the advisory lock every migrating svc holds: 0x73766365 ("svce"), SQLite's application
 * id. Advisory locks are per database, so two sandboxes on one server do not wait for each other.
 */
export const MIGRATION_LOCK_KEY = 1937138533;

/**
 * The comment on the record table that marks a database as svc's: PostgreSQL has no application id
 * in a header, and the record table's name is kysely's, which another kysely application also uses.
 */
export const SVC_MARKER = 'svc-emulator: applied migrations';

/** A database (its current schema) that holds another application's tables. Nothing was changed. */
export class ForeignDatabaseError extends Error {
  readonly code = 'database_foreign';
  constructor(readonly tables: string[]) {
    // JSON-quoted and cut short: a stranger's names reach the terminal only escaped.
    const listed =
      tables
        .slice(0, 3)
        .map((t) => JSON.stringify(t.slice(0, 60)))
        .join(', ') + (tables.length > 3 ? ', …' : '');
    super(`is not an svc database (it has tables svc never creates: ${listed}); it was left unchanged`);
  }
}

export interface PostgresMigrateOptions {
  /** Stop after this migration (tests build earlier schema versions with it). */
  upTo?: string;
  /** Loaders of the migrations by name, in order (default: PostgreSQL's registry). */
  migrations?: Record<string, () => Promise<Migration>>;
}

/**
 * Applies the missing migrations, all in one transaction under `pg_advisory_xact_lock`: replicas
 * starting together run each migration once (the others wait, then find it recorded), and a kill
 * or a lost connection leaves the database as it was. Records go to the same table, in the same
 * shape, as SQLite's. Refuses, before writing anything, a schema holding another application's
 * tables (ForeignDatabaseError) or migrations this release does not know (UnknownMigrationsError).
 * Runs in the connection's current schema (`search_path`; `public` by default). Resolves to the
 * names applied.
 */
// biome-ignore lint/suspicious/noExplicitAny: any database's kysely, as kysely's own Migration.up takes it
export async function migratePostgres(db: Kysely<any>, options: PostgresMigrateOptions = {}): Promise<string[]> {
  const all = options.migrations ?? postgresMigrations;
  const names = Object.keys(all);
  const last = options.upTo === undefined ? names.length : names.indexOf(options.upTo) + 1;
  if (last === 0) throw new Error(`unknown migration ${options.upTo}`);
  // Loaded before the transaction opens: nothing to wait for while holding the lock.
  const loaded = new Map<string, Migration>();
  for (const name of names.slice(0, last)) loaded.set(name, await all[name]!());

  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(trx);
    const done = new Set(await ownership(trx));
    const unknown = [...done].filter((name) => !(name in all));
    if (unknown.length) throw new UnknownMigrationsError(unknown);

    await sql`CREATE TABLE IF NOT EXISTS ${sql.table(MIGRATION_TABLE)} (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(trx);
    await sql`COMMENT ON TABLE ${sql.table(MIGRATION_TABLE)} IS ${sql.lit(SVC_MARKER)}`.execute(trx);
    const applied: string[] = [];
    for (const [name, migration] of loaded) {
      if (done.has(name)) continue;
      try {
        await migration.up(trx);
      } catch (error) {
        throw new MigrationError(name, error);
      }
      await trx.insertInto(MIGRATION_TABLE).values({ name, timestamp: new Date().toISOString() }).execute();
      applied.push(name);
    }
    return applied;
  });
}

/**
 * Whose the current schema is, read from the catalog only: the migrations recorded when it is
 * svc's (none when it is empty), ForeignDatabaseError when it holds tables or views and no marked
 * record table. Sequences, functions and types are not looked at: svc makes only tables and indexes.
 */
async function ownership(db: QueryExecutorProvider): Promise<string[]> {
  const { rows } = await sql<{ name: string; marker: string | null }>`
    SELECT c.relname AS name, obj_description(c.oid, 'pg_class') AS marker
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
    ORDER BY c.relname`.execute(db);
  if (rows.length === 0) return [];
  const record = rows.find((r) => r.name === MIGRATION_TABLE);
  if (record?.marker !== SVC_MARKER) throw new ForeignDatabaseError(rows.map((r) => r.name));
  const recorded = await sql<{ name: string }>`SELECT name FROM ${sql.table(MIGRATION_TABLE)} ORDER BY name`.execute(db);
  return recorded.rows.map((r) => r.name);
}
