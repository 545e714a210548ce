import type { StoreEngine } from '../engine.js';
import { bindRepositories, immediately, type StoreDb, withAfterCommit } from '../db.js';
import { sql } from 'kysely';
import { errorMessage } from '../../domain/caught.js';
import { randomUUID } from 'node:crypto';
import { type ChangeData, type Changes, type ChangeTopic, noChanges } from '../changes.js';
import type { Database } from '../schema.js';
import { openPostgres, type PostgresConnectOptions } from './connect.js';
import { migratePostgres } from './migrate.js';
import type { PgHandle } from './repos/handle.js';
import { postgresRepositories } from './repos/index.js';
import { clearPostgresData, HOLDING, ResetSharingDialect } from './reset.js';
import { type ChangeChannel, publishOn } from './notify.js';
import { type CacheScope, ReadCache, withReadCache } from './read-cache.js';
import { ReadBatch } from './read-batch.js';
import { invoicesById } from './repos/invoices.js';

/**
 * The PostgreSQL engine of the store interface (engine.ts): a bounded pool, migrated on open, and
 * transactions at PostgreSQL's default READ COMMITTED. What SQLite gets from running one writer at
 * a time, this gets from constraints (idempotency, tenants) and row locks (findInvoice in a
 * transaction, claims with SKIP LOCKED): see the repositories.
 */
export async function openPostgresEngine(options: PostgresConnectOptions): Promise<StoreEngine<PgHandle>> {
  const db = openPostgres<Database>(options, ResetSharingDialect);
  try {
    await migratePostgres(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    kind: 'postgres',
    db,
    repos: postgresRepositories,
    // Each shares the reset lock from its BEGIN (ResetSharingDialect).
    transaction: (fn) => db.transaction().execute(fn),
    close: () => db.destroy(),
  };
}

/**
 * The store interface on PostgreSQL: repositories on the pool (each statement its own transaction),
 * and transactions on one pooled connection, with the repositories bound to it.
 */
export interface PostgresStoreDb extends StoreDb {
  /** The pool's kysely: for our own tests' raw queries (server/internals.ts) and snapshots' import and export. */
  readonly handle: PgHandle;
  /** This process's id in the change notifications it sends (notify.ts): a statement may NOTIFY itself. */
  readonly instance: string;
  /** Forgets the rows kept in memory (read-cache.ts): after writes that went past the store, a restore's. */
  forgetCached(): void;
}

export function postgresDb(engine: StoreEngine<PgHandle>, channel?: ChangeChannel): PostgresStoreDb {
  // Without a channel (a test of the repositories alone) nothing is heard, but publishing still works.
  const changes: Changes = channel ?? noChanges;
  const instance = channel?.instance ?? randomUUID();
  // Each NOTIFY carries this process's id, so that its own channel can ignore it (notify.ts).
  const publisher = (handle: PgHandle) => (topic: ChangeTopic, data?: ChangeData) => publishOn(handle, instance, topic, data);
  const cache = new ReadCache();
  // What the other replicas changed (`tenants`), or replaced whole (a reset, a restore: `keys`); a
  // reconnected channel calls these too.
  changes.subscribe('tenants', () => cache.forget());
  changes.subscribe('keys', () => cache.forget());
  /** Forgets what a transaction's writes left cached once it ended, committed or not. */
  const forgetAfter = async <T>(run: Promise<T>, scope: { wrote?: boolean }): Promise<T> => {
    try {
      return await run;
    } finally {
      if (scope.wrote) cache.forget();
    }
  };
  // The repositories on the pool: the cached reads through `cache` (read-cache.ts), an invoice read
  // by id with the others asked meanwhile (read-batch.ts).
  const publish = publisher(engine.db);
  const pooled = withReadCache(bindRepositories(engine.repos, engine.db), cache, { publish, inTransaction: false });
  const invoiceReads = new ReadBatch((ids) => invoicesById(engine.db, ids));
  pooled.invoices = { ...pooled.invoices, findInvoice: (id) => invoiceReads.read(id) };
  return {
    handle: engine.db,
    ...pooled,
    publish,
    instance,
    forgetCached: () => cache.forget(),
    kind: 'postgres',
    changes,
    checkHealth: () => reachable(engine.db),
    transaction: (fn) => {
      const scope: CacheScope = { publish: () => Promise.resolve(), inTransaction: true };
      return withAfterCommit(fn, (body) =>
        forgetAfter(
          engine.transaction(async (trx) => {
            scope.publish = publisher(trx);
            return body({ ...withReadCache(bindRepositories(engine.repos, trx), cache, scope), publish: scope.publish });
          }),
          scope,
        ),
      );
    },
    afterCommit: immediately,
    // One transaction: the TRUNCATE and what refills (a reset's defaults) on two connections
    // could run in either order, and the defaults written first were emptied by it (issue 27).
    // Everything cached is forgotten once the reset ended; the other replicas hear `keys` (start.ts).
    clearData: (refill) =>
      forgetAfter(
        withAfterCommit(
          async (tx) => {
            await refill?.(tx);
          },
          // Not sharing the reset lock (reset.ts): two resets each sharing it while waiting to hold it
          // alone would deadlock.
          (body) =>
            engine.db
              .transaction()
              .setIsolationLevel(HOLDING)
              .execute(async (trx) => {
                await clearPostgresData(trx);
                return body({ ...bindRepositories(engine.repos, trx), publish: publisher(trx) });
              }),
        ),
        { wrote: true },
      ),
    // The channel first: a notification arriving while the pool closes would reload from a closed store.
    close: async () => {
      await changes.close();
      await engine.close();
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
