import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { errorMessage } from '../../domain/caught.js';
import { type ChangeData, type Changes, type ChangeTopic, noChanges } from '../changes.js';
import { bindRepositories, immediately, type StoreDb, withAfterCommit } from '../db.js';
import type { Database } from '../schema.js';
import { storageCondition } from './conditions.js';
import { LOCK_WAIT_MS, openPostgres, type PostgresConnectOptions } from './connect.js';
import { TransactionGate } from './gate.js';
import { type CacheScope, TenantCache, withTenantCache } from './tenant-cache.js';
import type { PgHandle } from './handle.js';
import { migratePostgres } from './migrate.js';
import { checkPostgresSchema } from './schema-check.js';
import { type ChangeChannel, publishOn, type Sender } from './notify.js';
import { clearPostgresData, HOLDING, ResetSharingDialect } from './reset.js';
import { postgresRunner } from './runner.js';

/**
 * A bounded pool, migrated: the PostgreSQL handle the store runs on. Transactions run at
 * PostgreSQL's default READ COMMITTED. What SQLite gets from running one writer at a time, this gets
 * from constraints (idempotency, tenants) and row locks (an invoice read in a transaction, claims
 * with SKIP LOCKED): see the repositories.
 */
export async function openPostgresHandle(options: PostgresConnectOptions): Promise<PgHandle> {
  const db = openPostgres<Database>(options, ResetSharingDialect);
  try {
    await migratePostgres(db);
    await checkPostgresSchema(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/**
 * The store interface on PostgreSQL: the repositories on the pool (each statement its own
 * transaction), and transactions on one pooled connection, with the repositories bound to it.
 */
export interface PostgresStoreDb extends StoreDb {
  /** The pool's kysely: the engine's own modules (journal, listener streams, snapshots) and our tests' raw queries. */
  readonly handle: PgHandle;
  /** This process's id in the change notifications it sends (notify.ts): a statement may NOTIFY itself. */
  readonly instance: string;
  /** Who signs this process's notifications (notify.ts). */
  readonly sender: Sender;
  /** The tenants' rows kept in memory (tenant-cache.ts). */
  readonly cache: TenantCache;
}

/** Pooled connections kept for reads and health, beside the transactions' (gate.ts). */
const KEPT_FOR_READS = 3;

export function postgresDb(handle: PgHandle, channel?: ChangeChannel, key: string = randomUUID(), poolSize = 10): PostgresStoreDb {
  const gate = new TransactionGate(Math.max(1, poolSize - KEPT_FOR_READS), LOCK_WAIT_MS);
  // Without a channel (a test of the repositories alone) nothing is heard, but publishing still works.
  const changes: Changes = channel ?? noChanges;
  const instance = channel?.instance ?? randomUUID();
  // Each NOTIFY carries this process's id, so that its own channel can ignore it (notify.ts).
  const sender: Sender = { instance, key };
  const publisher = (on: PgHandle) => (topic: ChangeTopic, data?: ChangeData) => publishOn(on, sender, topic, data);
  const publish = publisher(handle);
  const cache = new TenantCache();
  /** Forgets what a transaction's writes left cached once it ended, committed or not. */
  const forgetAfter = async <T>(run: Promise<T>, scope: { wrote?: boolean }): Promise<T> => {
    try {
      return await run;
    } finally {
      if (scope.wrote) cache.forget();
    }
  };
  const inTransaction = (trx: PgHandle, scope: CacheScope) => {
    scope.publish = publisher(trx);
    return { ...withTenantCache(bindRepositories(postgresRunner(trx)), cache, scope), publish: scope.publish };
  };
  return {
    handle,
    ...withTenantCache(bindRepositories(postgresRunner(handle)), cache, { publish, inTransaction: false }),
    publish,
    instance,
    sender,
    cache,
    changes,
    checkHealth: () => reachable(handle),
    condition: storageCondition,
    // Each transaction shares the reset lock from its BEGIN (ResetSharingDialect).
    transaction: (fn) =>
      withAfterCommit(fn, (body) => {
        const scope: CacheScope = { publish, inTransaction: true };
        return forgetAfter(
          gate.run(() => handle.transaction().execute(async (trx) => body(inTransaction(trx, scope)))),
          scope,
        );
      }),
    afterCommit: immediately,
    // One transaction: the TRUNCATE and what refills (a reset's defaults) on two connections
    // could run in either order, and the defaults written first were emptied by it (issue 27).
    clearData: (refill) =>
      withAfterCommit(
        async (tx) => {
          await refill?.(tx);
        },
        // Not sharing the reset lock (reset.ts): two resets each sharing it while waiting to hold it
        // alone would deadlock.
        (body) =>
          gate.run(() =>
            handle
              .transaction()
              .setIsolationLevel(HOLDING)
              .execute(async (trx) => {
                await clearPostgresData(trx);
                // Emptied past the repositories: what is cached is gone, and this transaction's
                // reads (a reset's defaults) must see the empty tables.
                cache.forget();
                return body(inTransaction(trx, { publish, inTransaction: true, wrote: true }));
              }),
          ),
      ).finally(() => cache.forget()),
    // The channel first: a notification arriving while the pool closes would reload from a closed store.
    close: async () => {
      await changes.close();
      await handle.destroy();
    },
  };
}

/** How long health waits for the server before calling it unreachable: a balancer's check is short. */
const HEALTH_TIMEOUT_MS = 2000;

/** Null when the server answers a trivial query within the timeout; else why not (`degraded`'s reason). */
async function reachable(db: PgHandle): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the database did not answer within ${HEALTH_TIMEOUT_MS / 1000} s`), HEALTH_TIMEOUT_MS);
  });
  try {
    return await Promise.race([sql`SELECT 1`.execute(db).then(() => null), timeout]);
  } catch (error) {
    return `the database cannot be reached (${errorMessage(error)}); requests answer 503 database_unavailable until it is back`;
  } finally {
    clearTimeout(timer);
  }
}
