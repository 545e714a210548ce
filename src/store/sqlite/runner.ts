import type { Runner } from '../engine.js';
import { sqliteStatements } from './claims.js';
import type { Store } from './store.js';

/**
 * The repositories' statements on one SQLite store: each compiled for SQLite (at build time in
 * dist/), prepared once on the store's connection, run synchronously by better-sqlite3. One runner
 * per store serves transactions and everything else: the store has one connection, and a
 * transaction is a savepoint of its group commit (store.ts).
 */
export function sqliteRunner(store: Store): Runner {
  const runner: Runner = {
    locksRows: false,
    // A failed write marks the storage unhealthy (disk full); try/catch costs nothing when nothing throws.
    all(statement, args = {}) {
      const stmt = statement.preparedOn(store.sqlite);
      try {
        return stmt.all(...statement.forSqlite.bind(args));
      } catch (error) {
        store.health.failed(error);
        throw error;
      }
    },
    get(statement, args = {}) {
      return statement.preparedOn(store.sqlite).get(...statement.forSqlite.bind(args));
    },
    run(statement, args = {}) {
      const stmt = statement.preparedOn(store.sqlite);
      try {
        return stmt.run(...statement.forSqlite.bind(args)).changes;
      } catch (error) {
        store.health.failed(error);
        throw error;
      }
    },
    own: sqliteStatements(store),
  };
  return runner;
}
