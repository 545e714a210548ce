/**
 * What an engine gives the repositories (issue 39): the repositories are written once
 * (src/store/repos/), each statement a kysely builder compiled for the engine's dialect
 * (./query.ts), and each function takes a `Runner` first. An engine is a Runner (its driver running
 * the compiled statements) plus the few statements it writes in its own SQL (`EngineStatements`):
 * the parity type every engine implements, so that a statement one engine lacks is a compile error.
 */
import type { Statement } from './query.js';
import type * as chains from './repos/chains.js';
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
import type { AttemptWrite, DeliveryRow, Held, Lease, ListenerScope } from './repos/deliveries.js';
import type { EventRow } from './repos/events.js';

type Args = Record<string, unknown>;
type Awaitable<T> = T | Promise<T>;

/**
 * Where a repository function runs its statements: an engine's connection outside a transaction,
 * or one transaction. SQLite answers at once (better-sqlite3 is synchronous), PostgreSQL in a
 * promise; repository functions await either.
 */
export interface Runner {
  all<Row>(statement: Statement<Row>, args?: Args): Awaitable<Row[]>;
  get<Row>(statement: Statement<Row>, args?: Args): Awaitable<Row | undefined>;
  /** Runs a write; how many rows it changed. */
  run(statement: Statement<unknown>, args?: Args): Awaitable<number>;
  /**
   * Whether a read made to change what it read must lock the rows (`FOR UPDATE`) until the
   * transaction ends: PostgreSQL inside a transaction, where transactions run side by side. SQLite
   * runs one writer at a time and never needs to.
   */
  readonly locksRows: boolean;
  /** What this engine says in its own SQL. */
  readonly own: EngineStatements;
}

/**
 * The statements each engine writes itself: the claims of due deliveries (window functions and JSON
 * of each dialect, and on PostgreSQL row locks that skip locked rows and a turn between replicas),
 * and the lock of a `meta` entry for a read-modify-write (PostgreSQL's advisory lock; nothing on
 * SQLite, which has one writer at a time). Each takes the Runner it is called on.
 */
export interface EngineStatements {
  claimDue(now: number, limit: number, perUrl: number, busy: ReadonlyMap<string, number>, lease?: Lease, listeners?: ListenerScope): Promise<DeliveryRow[]>;
  claimDueForUrl(url: string, now: number, limit: number, lease?: Lease, perUrl?: number, listeners?: ListenerScope): Promise<DeliveryRow[]>;
  lockMeta(key: string): Promise<void>;
  /** Leases on the store's clock (repos/deliveries.ts releaseExpiredLeases, renewLeases). */
  releaseExpiredLeases(leaseMs: number): Promise<number>;
  renewLeases(owner: string, leaseMs: number): Promise<number>;
  /**
   * A batch in one statement, where a statement costs a round trip (PostgreSQL): the dispatcher's
   * reads and writes of a batch of attempts, an expiry's tokens. Without one, the repository runs
   * its statement once per item (SQLite: microseconds each).
   */
  batch?: BatchStatements;
}

/** The batches an engine may run as one statement each (see EngineStatements.batch). */
export interface BatchStatements {
  findEvents(ids: readonly string[]): Promise<EventRow[]>;
  endLeasesAndFind(held: readonly Held[], ids: readonly string[]): Promise<{ held: string[]; rows: DeliveryRow[] }>;
  recordAttempts(writes: readonly AttemptWrite[]): Promise<void>;
  lastConfirmedTokensOf(invoiceIds: readonly string[]): Promise<Map<string, string | null>>;
}

/** The repositories, by the names the store interface binds (db.ts). */
export interface Repositories {
  invoices: typeof invoices;
  merchants: typeof merchants;
  partners: typeof partners;
  keys: typeof keys;
  events: typeof events;
  payments: typeof payments;
  deliveries: typeof deliveries;
  idempotency: typeof idempotency;
  webhookConfigs: typeof webhookConfigs;
  listeners: typeof listeners;
  meta: typeof meta;
  chains: typeof chains;
}
