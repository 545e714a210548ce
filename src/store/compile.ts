/**
 * Build time only (scripts/build.mjs, which imports this with every module of `repos/`): compiles
 * each registered statement, and records the statements each frozen migration runs, into the table
 * that replaces `compiled.ts` in dist/. Nothing of the package imports this at run time.
 */
import BetterSqlite3 from 'better-sqlite3';
import * as kysely from 'kysely';
import type { CompiledSql, CompiledStatement } from './compiled.js';
import { migrations } from './migrations/index.js';
import { registry, useQueryBuilder } from './query.js';

export async function compileSql(): Promise<CompiledSql> {
  useQueryBuilder(kysely);
  const statements: Record<string, CompiledStatement> = {};
  for (const [key, compile] of registry) statements[key] = compile();
  return { statements, migrations: await recordMigrations() };
}

/**
 * Runs every migration through kysely on a fresh in-memory database and keeps the SQL it executed.
 * The migrations are DDL with their values written in (kysely inlines defaults): a statement with
 * parameters cannot be replayed as text, so it stops the build.
 */
async function recordMigrations(): Promise<Record<string, string[]>> {
  const sqlite = new BetterSqlite3(':memory:');
  let current: kysely.CompiledQuery[] = [];
  const db = new kysely.Kysely<unknown>({
    dialect: new kysely.SqliteDialect({ database: sqlite }),
    log: (event) => {
      if (event.level === 'query') current.push(event.query);
    },
  });
  const recorded: Record<string, string[]> = {};
  try {
    for (const [name, load] of Object.entries(migrations)) {
      current = [];
      await (await load()).up(db);
      const withParameters = current.find((q) => q.parameters.length > 0);
      if (withParameters) throw new Error(`migration ${name} runs a statement with parameters, which the build cannot record: ${withParameters.sql}`);
      recorded[name] = current.map((q) => q.sql);
    }
  } finally {
    sqlite.close();
  }
  return recorded;
}
