/**
 * The one asynchronous store the emulator uses (issue 27, ARCHITECTURE "src/store/"): repositories
 * bound to a handle, and transactions. The server, the webhooks and the control plane see only
 * this; which engine answers (SQLite: ./sqlite/db.ts, PostgreSQL: ./postgres/engine.ts) is decided
 * once, when the store opens.
 *
 *     const invoice = await db.invoices.findInvoice(id);
 *     await db.transaction(async (tx) => { await tx.invoices.insertInvoice(row); await recordEvents(tx, …); });
 *
 * Inside a transaction, use only `tx`: on PostgreSQL `db` is another connection, which neither sees
 * the transaction's writes nor may wait on its locks. A transaction's function awaits only the store:
 * SQLite runs one batch of them at a time on its one connection (group commit), and anything else
 * awaited there would hold up every write.
 */
import type { ChangeData, Changes, ChangeTopic } from './changes.js';
import type { StorageCondition } from './conditions.js';
import type { Repositories, Runner } from './engine.js';
import { repositories } from './repos/index.js';
import type * as meta from './repos/meta.js';

/** meta's guard for numbers (the clock offset, the random epoch), for callers of `meta.getMeta`. */
export { isFiniteNumber } from './repos/meta.js';

/**
 * Whether `F` is a repository function: its first parameter is the Runner (a helper exported beside
 * them, such as meta's `isFiniteNumber(value: unknown)`, would also accept a Runner, and is not one).
 */
// biome-ignore lint/suspicious/noExplicitAny: matches any argument list; the arguments themselves are kept by Bound
type TakesRunner<F> = F extends (first: infer S, ...args: any[]) => unknown ? (unknown extends S ? false : Runner extends S ? true : false) : false;

/** A repository bound to a runner: each of its functions without the first (runner) argument. */
export type Bound<M> = {
  [K in keyof M as TakesRunner<M[K]> extends true ? K : never]: M[K] extends (db: Runner, ...args: infer A) => infer P ? (...args: A) => P : never;
};

/** meta's getMeta keeps its type parameter (inferring a generic function's type would lose it). */
export type BoundMeta = Omit<Bound<typeof meta>, 'getMeta'> & {
  getMeta<T>(key: string, is: (value: unknown) => value is T): Promise<T | undefined>;
};

/** Every repository, bound to a runner: the store outside a transaction, or one transaction. */
export type Repos = { [K in Exclude<keyof Repositories, 'meta'>]: Bound<Repositories[K]> } & { meta: BoundMeta };

export interface TransactionOptions {
  /**
   * false: refuse at once when another program holds SQLite's write lock (SQLITE_BUSY), instead of
   * waiting up to 5 s. For background work (deliveries, expiry), which tries again on its own.
   */
  wait?: boolean;
}

/** The repositories inside one transaction, and what is to happen once it commits. */
export interface Tx extends Repos {
  /**
   * Runs `callback` after the transaction committed (never when it rolls back): wake-ups of work
   * that must see its rows. PostgreSQL's dispatcher claims on another connection, which would not
   * see a delivery written by a transaction still open. Outside a transaction, at once.
   */
  afterCommit(callback: () => void): void;
  /**
   * Tells the other processes on this database that `topic` changed (./changes.ts), if and once this
   * transaction commits: PostgreSQL's NOTIFY in the transaction; nothing on SQLite (one process).
   * Outside a transaction, at once.
   */
  publish(topic: ChangeTopic, data?: ChangeData): Promise<void>;
}

/** What a transaction is besides its after-commit callbacks: the repositories and publish, bound to it. */
export type TxBody = Repos & Pick<Tx, 'publish'>;

/** An open store: repositories outside any transaction (each call commits on its own), and transactions. */
export interface StoreDb extends Tx {
  /** What other processes on this database changed (./changes.ts); never called on SQLite. */
  readonly changes: Changes;
  /**
   * Why writes cannot be stored now, or null (`/__emulator/health`): SQLite's last write failure (a
   * full disk, CONTRACT §8); PostgreSQL asks the server (§12: unreachable while it restarts).
   */
  checkHealth(): Promise<string | null>;
  /** What an error this store's engine raised means for a client (./conditions.ts), or null: a bug, or the caller's. */
  condition(error: unknown): StorageCondition | null;
  /**
   * Runs `fn` in one transaction: all it wrote commits before the promise resolves, and none of it
   * when `fn` rejects (its rejection is passed on). Not nestable: pass `tx` down instead.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T> | T, options?: TransactionOptions): Promise<T>;
  /**
   * Empties every table a reset empties (DATA_TABLES), in one transaction: `meta` stays, since it
   * holds the default identity and the clock. `refill` then writes in that same transaction (a
   * reset's defaults), so nobody sees the emptied state, and the two cannot be reordered.
   */
  clearData(refill?: (tx: Tx) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** Tables emptied by a reset, children first. `meta` stays: it holds the identity and the clock. */
export const DATA_TABLES = [
  'chain_transfers',
  'local_chains',
  'listeners',
  'delivery_attempts',
  'deliveries',
  'events',
  'payments',
  'idempotency_keys',
  'invoices',
  'webhook_configs',
  'api_keys',
  'merchants',
  'partners',
] as const;

/**
 * A store whose every call runs in the open transaction `tx`: what an idempotent create's handler
 * gets (pipeline/handler.ts), so that the create and the memory of its answer commit together. Its
 * `transaction(fn)` joins the outer one (runs `fn(tx)`; a rejection rolls the outer one back), which
 * lets code written for either case open "its" transaction as usual. It cannot be closed or cleared.
 */
export function joinTransaction(tx: Tx, outer: StoreDb): StoreDb {
  return {
    ...tx,
    changes: outer.changes,
    checkHealth: () => outer.checkHealth(),
    condition: (error) => outer.condition(error),
    transaction: async (fn) => fn(tx),
    clearData: () => Promise.reject(new Error('clearData inside a transaction')),
    close: () => Promise.reject(new Error('a joined transaction cannot be closed')),
  };
}

/**
 * An engine's transaction with after-commit callbacks: `run` opens the transaction and calls `body`
 * with the repositories bound to it; the callbacks `fn` registered run once `run` resolved, that
 * is after the commit, and are dropped when it rejects.
 */
export async function withAfterCommit<T>(fn: (tx: Tx) => Promise<T> | T, run: (body: (repos: TxBody) => Promise<T> | T) => Promise<T>): Promise<T> {
  const callbacks: (() => void)[] = [];
  const result = await run((repos) => fn({ ...repos, afterCommit: (callback) => void callbacks.push(callback) }));
  for (const callback of callbacks) callback();
  return result;
}

/** Outside a transaction every call commits on its own: "after the commit" is now. */
export const immediately = (callback: () => void): void => callback();

/**
 * Every repository function bound to `runner`. Cheap (one closure per function), so an engine whose
 * transactions each have a runner (PostgreSQL) binds once per transaction. The repositories are
 * module namespace objects, whose entries are slow to list: listed once, and each binding only makes
 * the closures.
 */
export function bindRepositories(runner: Runner, repos: Repositories = repositories): Repos {
  let listed = functionsOf.get(repos);
  if (!listed) {
    listed = Object.entries(repos).map(([name, repo]) => [name, Object.entries(repo)] as const);
    functionsOf.set(repos, listed);
  }
  const bound: Record<string, Record<string, unknown>> = {};
  for (const [name, functions] of listed) {
    const bind: Record<string, unknown> = {};
    for (const [fnName, fn] of functions) if (typeof fn === 'function') bind[fnName] = (...args: unknown[]) => fn(runner, ...args);
    bound[name] = bind;
  }
  return bound as Repos;
}

/** Each set of repositories' entries, by repository (see bindRepositories). */
const functionsOf = new WeakMap<object, readonly (readonly [string, readonly [string, unknown][]])[]>();
