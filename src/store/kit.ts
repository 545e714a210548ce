/**
 * The seam between the store's engines and the rest of the emulator (issue 39; ARCHITECTURE habits
 * 13–14): an engine is chosen once, where the store opens (./open.ts), and its folder builds this
 * kit: everything CONTRACT §12 shares between processes on one database, in the form the engine
 * keeps it. server/ and webhooks/ receive the kit through their dependencies and never ask which
 * engine built it.
 *
 * SQLite (./sqlite/kit.ts): one process per database (CONTRACT §8), so what is shared is this
 * process's memory, no feeds, no presence and no leases. PostgreSQL (./postgres/kit.ts): rows every
 * replica reads, LISTEN/NOTIFY for what must wake, leases on claims.
 */
import type { AttemptTrigger, DeliveryTarget, Environment } from '../contract/enums.js';
import type { ClockStore } from './clock-store.js';
import type { StoreDb } from './db.js';
import type { JournalTable } from './journal-table.js';
import type { ClaimLeases, LeaseHooks } from './leases.js';
import type { ListenerPresence } from './listener-presence.js';
import type { SharedValue, SharedValueOptions } from './shared-value.js';
import type { SnapshotEngine } from './snapshot-engine.js';
import type { OpenedStore } from './sqlite/store.js';

export interface StoreKit {
  /** Repositories and transactions (./db.ts). */
  readonly db: StoreDb;
  /** The emulator clock's write (./clock-store.ts): one process's, or the sandbox's. */
  readonly clock: ClockStore;
  /**
   * Where other processes share the database: the version of what every process caches (clock,
   * faults, chaos, keys), which each change of it replaces in the same transaction. A process reads
   * it before serving a request and reloads its caches when it moved (CONTRACT §12: read your
   * writes, across replicas). Null where this process is the only one: nothing can change unseen.
   */
  readonly sandboxVersion: (() => Promise<string | null>) | null;
  /** A value the sandbox shares (faults, chaos): memory of the one process, or a row of the shared database. */
  sharedValue<T>(options: SharedValueOptions<T>): SharedValue<T>;
  /**
   * What the live views read of other processes' writes (the journal's table, the attempts they
   * announced), where several share the database; null where this process is the only one.
   */
  readonly feeds: ReplicaFeeds | null;
  /** Where other processes' `svc webhook listen` streams are (null: this process holds every stream). */
  presence(leaseMs: number): ListenerPresence | null;
  /** The dispatcher's claim leases. */
  leases(leaseMs: number | undefined, hooks: LeaseHooks): ClaimLeases;
  /** Snapshots' engine half (./snapshot-engine.ts); `onError` hears failures nobody awaits. */
  snapshots(onError: (message: string) => void): Promise<SnapshotEngine>;
  /**
   * At start: attempts a crash cut short are due again. One process per database owned every claim
   * (SQLite); where replicas share it, only claims whose lease ended.
   */
  recoverClaims(leaseMs: number): Promise<void>;
  /** The emulator listens at `url`: the file claim records it (SQLite; CONTRACT §8 "one emulator per database"). */
  listening(url: string): void;
  /** An error of the start after the store opened, as the user should read it (a file's one line). */
  explain(error: unknown): unknown;
  /** Our own tests' view: one raw SQL statement, rows as objects (server/internals.ts). */
  query(text: string): Promise<Record<string, unknown>[]>;
  /** Our own tests' view: SQLite's store, null on other engines (server/internals.ts). */
  readonly sqlite: OpenedStore | null;
  close(): Promise<void>;
}

/** What other processes sharing the database wrote, for this one's live views (server/shared-views.ts). */
export interface ReplicaFeeds {
  readonly journal: JournalTable;
  /** The attempts of `deliveryIds`, in the order they were written. */
  attemptsOf(deliveryIds: readonly string[]): Promise<AttemptFeedRow[]>;
}

/** One stored delivery attempt with what its delivery says of it: a `delivery.result` event's rows. */
export interface AttemptFeedRow {
  delivery_id: string;
  number: number;
  trigger: AttemptTrigger;
  url: string;
  started_at: number;
  response_status: number | null;
  error: string | null;
  partner_id: string;
  environment: Environment;
  invoice_id: string;
  event_id: string;
  event_type: string;
  target: DeliveryTarget;
}
