import type { Repositories } from '../engine.js';
import { noChanges, publishNothing } from '../changes.js';
import { DATA_TABLES, immediately, type Repos, type StoreDb, withAfterCommit } from '../db.js';
import * as deliveries from '../repos/deliveries.js';
import * as events from '../repos/events.js';
import * as idempotency from '../repos/idempotency.js';
import * as invoices from '../repos/invoices.js';
import * as keys from '../repos/keys.js';
import * as listeners from '../repos/listeners.js';
import * as merchants from '../repos/merchants.js';
import * as meta from '../repos/meta.js';
import * as partners from '../repos/partners.js';
import * as payments from '../repos/payments.js';
import * as webhookConfigs from '../repos/webhook-configs.js';
import type { Store } from './store.js';

/** SQLite's repositories, synchronous, by the names of the store interface (engine.ts). */
const modules = { invoices, merchants, partners, keys, events, payments, deliveries, idempotency, webhookConfigs, listeners, meta };

/**
 * Each synchronous SQLite repository function as the asynchronous one of the store interface, bound
 * to `store`: the statement runs at once, and its result (or its error) comes back as a settled
 * promise. Bound once per store: one connection serves transactions and everything else.
 */
function bindSqlite(store: Store): Repos {
  const repos: Record<string, Record<string, unknown>> = {};
  for (const [name, module] of Object.entries(modules)) {
    const functions: Record<string, unknown> = {};
    for (const [fnName, fn] of Object.entries(module)) {
      if (typeof fn !== 'function') continue;
      functions[fnName] = (...args: unknown[]) => {
        try {
          return Promise.resolve(fn(store, ...args));
        } catch (error) {
          return Promise.reject(error);
        }
      };
    }
    repos[name] = functions;
  }
  // The loop cannot be typed as the mapped interface; `modules` is checked against it below.
  return repos as Repos;
}

/** Compile-time only: SQLite's modules must have what the interface derives from them. */
type Check<T extends { [K in keyof Repositories<Store>]: unknown }> = T;
export type SqliteModulesCheck = Check<typeof modules>;

/**
 * The store interface on an open SQLite store: repositories bound once to its connection, and
 * transactions through its group commit (store.ts `batch`), where each transaction is a savepoint
 * of the batch's one `BEGIN IMMEDIATE` transaction.
 */
export function sqliteDb(store: Store): StoreDb {
  const repos = bindSqlite(store);
  // One process: nobody to tell of a change, and nobody telling (./changes.ts).
  const bound = { ...repos, publish: publishNothing };
  return {
    ...bound,
    kind: 'sqlite',
    changes: noChanges,
    checkHealth: async () => store.health.problem(),
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
