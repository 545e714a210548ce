import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely, Migration } from 'kysely';
import { COMPILED } from './compiled.js';
import { migrations as registry } from './migrations/index.js';
import { errorMessage } from '../domain/caught.js';
import { textColumn } from './row.js';

/**
 * Where applied migrations are recorded: kysely's Migrator's own table, so that databases migrated
 * by earlier releases (which used the Migrator) carry on where they stopped.
 */
export const MIGRATION_TABLE = 'kysely_migration';

/** Migrations a database has recorded that this release does not know: it was made by a newer one. */
export class UnknownMigrationsError extends Error {
  constructor(readonly names: string[]) {
    super(`the database was migrated by a newer version of svc (unknown migrations: ${names.join(', ')})`);
  }
}

export interface MigrateOptions {
  /** Stop after this migration (tests build earlier schema versions with it). */
  upTo?: string;
  /** Loaders of the migrations by name, in order (default: the registry). */
  migrations?: Record<string, () => Promise<Migration>>;
  /** Each migration's SQL as the build recorded it (default: dist/'s table; none in the sources). */
  compiled?: Record<string, string[]>;
}

/**
 * Applies the missing migrations in order, each in its own `BEGIN IMMEDIATE … COMMIT` together with
 * its record, on the one connection. A kill at any moment leaves the database as it was before the
 * migration that was running; the next start runs it again.
 *
 * kysely's Migrator cannot give that on SQLite: it runs each migration outside a transaction, so a
 * kill between two statements left half a migration and no record, and every later start failed
 * (`table "meta" already exists`). better-sqlite3 is synchronous and nothing else uses the connection
 * during start-up, so a transaction opened here spans kysely's (awaited) statements.
 *
 * From dist/, a migration's statements are the SQL the build recorded from it (`compile.ts`), run one
 * by one in the same transaction: kysely is not loaded at all.
 */
export async function migrate(sqlite: BetterSqlite3.Database, options: MigrateOptions = {}): Promise<string[]> {
  const all = options.migrations ?? registry;
  const names = Object.keys(all);
  const last = options.upTo === undefined ? names.length : names.indexOf(options.upTo) + 1;
  if (last === 0) throw new Error(`unknown migration ${options.upTo}`);
  const precompiled = options.compiled ?? (options.migrations ? undefined : COMPILED?.migrations);
  let db: Kysely<unknown> | undefined;
  const applied: string[] = [];

  const done = new Set(recorded(sqlite));
  const unknown = [...done].filter((name) => !(name in all));
  if (unknown.length) throw new UnknownMigrationsError(unknown);

  for (const name of names.slice(0, last)) {
    if (done.has(name)) continue;
    const statements = precompiled?.[name];
    // Loaded (and kysely with it) before the transaction opens: nothing to wait for inside it.
    const migration = statements ? null : await all[name]!();
    if (migration) db ??= await kyselyOn(sqlite);
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      // The record table is created inside the first migration's transaction: a kill before its
      // commit leaves a fresh database exactly as empty as it was.
      sqlite.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATION_TABLE} (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)`);
      // Under the write lock, look again: an unclaimed opener (a tool) may have applied it meanwhile.
      if (sqlite.prepare(`SELECT 1 FROM ${MIGRATION_TABLE} WHERE name = ?`).get(name)) {
        sqlite.exec('COMMIT');
        continue;
      }
      if (statements) for (const statement of statements) sqlite.exec(statement);
      else await migration!.up(db!);
      sqlite.prepare(`INSERT INTO ${MIGRATION_TABLE} (name, timestamp) VALUES (?, ?)`).run(name, new Date().toISOString());
      sqlite.exec('COMMIT');
      applied.push(name);
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw new MigrationError(name, error);
    }
  }
  return applied;
}

/** Kysely only compiles and runs statements here; it borrows the connection (never destroy() it: its driver would close the database). */
async function kyselyOn(sqlite: BetterSqlite3.Database): Promise<Kysely<unknown>> {
  const { Kysely, SqliteDialect } = await import('kysely');
  return new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
}

/** A migration that failed; the database is as it was before it. */
export class MigrationError extends Error {
  constructor(
    readonly migration: string,
    cause: unknown,
  ) {
    super(`migration ${migration} failed: ${errorMessage(cause)}`, { cause });
  }
}

/** Names of the migrations the database has recorded (none when it has no record table yet). */
export function recorded(sqlite: BetterSqlite3.Database): string[] {
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATION_TABLE);
  if (!table) return [];
  return sqlite
    .prepare(`SELECT name FROM ${MIGRATION_TABLE} ORDER BY name`)
    .all()
    .map((r) => textColumn(r, 'name'));
}
