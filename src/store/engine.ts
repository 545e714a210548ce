/**
 * The asynchronous store both engines implement (issue 27): SQLite (today's synchronous repos, to
 * be wrapped) and PostgreSQL (src/store/postgres/repos/). Types only, no behaviour.
 *
 * Each repository is derived from the SQLite module of the same name: every exported function that
 * takes the `Store` first becomes one with the same name, the same arguments after an engine's
 * handle, and the same row type in a Promise. A function added to or changed in a SQLite repo is
 * then a compile error in an engine that lacks it, never a silent difference between engines.
 */
import type * as deliveries from './repos/deliveries.js';
import type * as events from './repos/events.js';
import type * as idempotency from './repos/idempotency.js';
import type * as invoices from './repos/invoices.js';
import type * as keys from './repos/keys.js';
import type * as listeners from './repos/listeners.js';
import type * as merchants from './repos/merchants.js';
import type * as meta from './repos/meta.js';
import type * as partners from './repos/partners.js';
import type * as payments from './repos/payments.js';
import type * as webhookConfigs from './repos/webhook-configs.js';
import type { Store } from './sqlite/store.js';

/** A SQLite repo function made asynchronous: `(store, ...args) => R` becomes `(handle, ...args) => Promise<R>`. */
export type AsyncRepoFunction<F, H> = F extends (store: Store, ...args: infer A) => infer R ? (handle: H, ...args: A) => Promise<R> : never;

/**
 * Whether `F` is a repo function: its first parameter is the `Store` (a helper exported beside them,
 * such as meta's `isFiniteNumber(value: unknown)`, would also accept a Store, and is not one).
 */
// biome-ignore lint/suspicious/noExplicitAny: matches any argument list; the arguments themselves are kept by AsyncRepoFunction
type TakesStore<F> = F extends (first: infer S, ...args: any[]) => unknown ? (unknown extends S ? false : S extends Store ? true : false) : false;

/** Every function of a SQLite repo module that takes the `Store` first, made asynchronous on handle `H`. */
export type AsyncRepository<M, H> = {
  [K in keyof M as TakesStore<M[K]> extends true ? K : never]: AsyncRepoFunction<M[K], H>;
};

/**
 * `meta`, with `getMeta` written out: inferring a generic function's type loses its type parameter
 * (the guard's `T` would become `unknown`), so this one signature repeats SQLite's by hand.
 */
export type MetaRepository<H> = Omit<AsyncRepository<typeof meta, H>, 'getMeta'> & {
  getMeta<T>(handle: H, key: string, is: (value: unknown) => value is T): Promise<T | undefined>;
};

/** The repositories of one engine, each function taking that engine's handle `H` first. */
export interface Repositories<H> {
  invoices: AsyncRepository<typeof invoices, H>;
  merchants: AsyncRepository<typeof merchants, H>;
  partners: AsyncRepository<typeof partners, H>;
  keys: AsyncRepository<typeof keys, H>;
  events: AsyncRepository<typeof events, H>;
  payments: AsyncRepository<typeof payments, H>;
  deliveries: AsyncRepository<typeof deliveries, H>;
  idempotency: AsyncRepository<typeof idempotency, H>;
  webhookConfigs: AsyncRepository<typeof webhookConfigs, H>;
  listeners: AsyncRepository<typeof listeners, H>;
  meta: MetaRepository<H>;
}

export type EngineKind = 'sqlite' | 'postgres';

/**
 * An open store on one engine. `H` is the engine's handle (PostgreSQL: a kysely `Kysely` or
 * `Transaction`): callers only pass along the one `transaction` gives them, or `db`.
 */
export interface StoreEngine<H> {
  readonly kind: EngineKind;
  /** The handle outside any transaction: each call commits on its own (reads, single writes). */
  readonly db: H;
  readonly repos: Repositories<H>;
  /**
   * Runs `fn` in one transaction: everything it wrote commits when its promise resolves, and
   * nothing does when it rejects (the rejection is passed on). Not nestable.
   */
  transaction<T>(fn: (tx: H) => Promise<T>): Promise<T>;
  /** Ends the engine's connections; the engine is unusable afterwards. */
  close(): Promise<void>;
}
