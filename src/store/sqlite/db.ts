import { noChanges, publishNothing } from '../changes.js';
import { bindRepositories, DATA_TABLES, immediately, type StoreDb, withAfterCommit } from '../db.js';
import { sqliteRunner } from './runner.js';
import type { Store } from './store.js';
import { storageCondition } from './conditions.js';

/**
 * The store interface on an open SQLite store: the repositories bound once to its runner (one
 * connection), and transactions through its group commit (store.ts `batch`), where each
 * transaction is a savepoint of the batch's one `BEGIN IMMEDIATE` transaction. A repository's
 * statement runs at once, and its result (or its error) comes back as a settled promise.
 */
export function sqliteDb(store: Store): StoreDb {
  const repos = bindRepositories(sqliteRunner(store));
  // One process: nobody to tell of a change, and nobody telling (../changes.ts).
  const bound = { ...repos, publish: publishNothing };
  return {
    ...bound,
    changes: noChanges,
    checkHealth: async () => store.health.problem(),
    condition: storageCondition,
    // One connection: inside a transaction, the same bound repositories write into it.
    transaction: (fn, options) => withAfterCommit(fn, (run) => store.batch(() => run(bound), options?.wait ?? true)),
    afterCommit: immediately,
    // A transaction of the group commit like any other, with the refill (a reset's defaults) in it:
    // no request sees the tables empty and the default keys gone.
    clearData: (refill) =>
      withAfterCommit(
        async (tx) => {
          for (const table of DATA_TABLES) store.sqlite.prepare(`DELETE FROM ${table}`).run();
          await refill?.(tx);
        },
        (body) => store.batch(() => body(bound)),
      ),
    close: async () => store.close(),
  };
}
