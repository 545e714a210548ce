import * as kysely from 'kysely';
import type { Runner } from '../engine.js';
import { type Dialect, type Statement, useKysely } from '../query.js';
import type { Database } from '../schema.js';
import { postgresStatements } from './claims.js';
import type { PgHandle } from './handle.js';

useKysely(kysely);

/** The repositories' statements compiled for PostgreSQL: kysely's own compiler, on first use of each. */
const POSTGRES: Dialect = {
  name: 'postgres',
  qb: new kysely.Kysely<Database>({
    dialect: {
      createAdapter: () => new kysely.PostgresAdapter(),
      createDriver: () => new kysely.DummyDriver(),
      createIntrospector: (db) => new kysely.PostgresIntrospector(db),
      createQueryCompiler: () => new kysely.PostgresQueryCompiler(),
    },
  }),
};

/**
 * The repositories' statements on PostgreSQL, on `handle`: the pool's kysely (each statement its own
 * transaction) or one transaction's. Each statement runs as its compiled text through kysely's
 * executeQuery, on kysely's PostgreSQL driver (pg). Reads made to change the rows lock them inside a
 * transaction (engine.ts `locksRows`): transactions run side by side here.
 */
export function postgresRunner(handle: PgHandle): Runner {
  const query = <Row>(statement: Statement<Row>, args: Record<string, unknown>) => {
    const compiled = statement.compiledFor(POSTGRES);
    return handle.executeQuery<Row>(kysely.CompiledQuery.raw(compiled.sql, compiled.bind(args)));
  };
  const runner: Runner = {
    locksRows: handle.isTransaction,
    all: async (statement, args = {}) => (await query(statement, args)).rows,
    get: async (statement, args = {}) => (await query(statement, args)).rows[0],
    run: async (statement, args = {}) => Number((await query(statement, args)).numAffectedRows ?? 0n),
    own: postgresStatements(handle),
  };
  return runner;
}
