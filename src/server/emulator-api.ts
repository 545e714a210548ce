import type { Client } from '../client/typed.js';
import type { Clock } from '../clock/clock.js';
import type { EmulatorConfig } from '../config/defaults.js';
import type { ChaosSpec as WebhookChaosSpec } from '../contract/testing-types.js';
import type { EmulatorListener } from './events.js';
import type { DefaultKeys } from '../contract/default-keys.js';
import type { LookupFn } from '../domain/lookup.js';
import type { AdvanceReport, EmulatorChains, FaultControl, JournalFilter } from './public-types.js';

import type { Imported } from './snapshots/files.js';
import type { JournalEntry, SnapshotInfo } from '../contract/testing-types.js';

// What startEmulator takes and returns (the package's API, src/index.ts); ./start.ts builds it.

export interface StartEmulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** SQLite file, or ':memory:' (the default) for a throwaway database. */
  db?: string;
  /**
   * A PostgreSQL database instead of SQLite (CONTRACT §12): `postgres://user:password@host:5432/name`.
   * Several emulators may share one; its password is never shown. Not together with `db`.
   */
  database?: string;
  /** Defaults to wall-clock time plus an offset that is persisted in the database. */
  clock?: Clock;
  /** Settings over the defaults (usually from the config file); nested groups may be partial. */
  config?: EmulatorConfigInput;
  /** Empty the database before serving (keeps the default keys). */
  reset?: boolean;
  /**
   * Receives everything the emulator reports: each request answered, warnings, unexpected errors,
   * and each webhook delivery attempt (sent, then its result). See {@link EmulatorEvent}.
   */
  onEvent?: EmulatorListener;
  /** Base URL to put in checkoutUrl/bindUrl when the emulator is reached through a proxy. */
  publicUrl?: string;
  /**
   * Host names to serve besides loopback, the bound address and the public URL's host (CONTRACT §8,
   * DNS rebinding): e.g. a LAN name or a container's service name; `.example.test` also allows its
   * subdomains; `'all'` lifts the check. Added to `config.allowedHosts`.
   */
  allowedHosts?: string[];
  /**
   * How a second emulator refused this database names this one (`svc dev`). A file database is
   * claimed for the emulator's lifetime (CONTRACT §8 "One emulator per database").
   */
  owner?: string;
  /**
   * How webhook hosts are resolved (default: the system resolver). Tests inject one to play a DNS
   * answer that points a live webhook's name at a private address.
   */
  lookup?: LookupFn;
  /**
   * How long, in wall-clock ms, a claimed webhook delivery stays with this emulator without its
   * renewal before another replica on the same PostgreSQL database may take it (CONTRACT §12).
   * Default 25 000 (taken over within 30 s of a replica's death). Tests of dying replicas shorten it.
   */
  leaseMs?: number;
  /**
   * Start from a snapshot file (`svc snapshot export`, or a file `emulator.snapshot()` wrote): its
   * data, clock and keys replace the database's before the emulator serves (CONTRACT §9). The file
   * is untrusted (CONTRACT §8): a schema svc did not write is refused, and the deliveries it left
   * pending are kept but not sent until resent (`emulator.imported` says which URLs it brought).
   */
  snapshot?: string;
  /**
   * Write the state to this file when `stop()` runs, as an exported snapshot (a file `snapshot`
   * above takes back), atomically: a copy beside it renamed over it. With `snapshot` naming the same
   * file, a throwaway in-memory emulator keeps its state between runs. `stop()` rejects when the file
   * cannot be written (the emulator is stopped all the same).
   */
  exportOnExit?: string;
  /**
   * Derive generated ids and test keys from this seed (CONTRACT §9, deterministic runs): two
   * emulators with the same seed, clock start and requests answer with the same bytes. Live keys and
   * signing secrets stay random (a seed is no secret). Overrides `config.seed`.
   */
  seed?: number;
  /** Start the clock here, frozen unless advanced (an ISO time, a Date or epoch ms). Overrides `config.clockStart`. */
  clockStart?: string | number | Date;
  /**
   * Run a local chain per EVM test network (CONTRACT §14): anvil nodes (the optional package
   * `@foundry-rs/anvil`) with each network's USDC, whose transfers to invoices' deposit addresses
   * are payments. `confirmations`: blocks a payment's block needs, its own included (default 2).
   * SQLite only. Overrides `config.localChains`.
   */
  chains?: boolean | { confirmations?: number };
}

/**
 * A running emulator, as `startEmulator` returns it. Its database is not part of this interface:
 * drive it over HTTP (`url`, `keys`) like your application does.
 */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:4747`. */
  readonly url: string;
  readonly port: number;
  /** The address the server is bound to, as `host:port` (`127.0.0.1:4747`, `0.0.0.0:4747`, `[::1]:4747`). */
  readonly address: string;
  /** The default partner's keys and merchant ids. */
  readonly keys: DefaultKeys;
  /**
   * What the `snapshot` file brought (null without one): the webhook URLs of its configurations and
   * pending deliveries, and how many deliveries are held until resent (CONTRACT §8).
   */
  readonly imported: Imported | null;
  /**
   * Typed clients of this emulator's API, one per environment, with the default keys: the partner key
   * for partner endpoints, the merchant key for merchant ones (`emulator.client.test.createInvoice(…)`).
   */
  readonly client: { readonly test: Client; readonly live: Client };
  /** The emulator's clock (`now()` in milliseconds); `advanceClock` moves it. */
  readonly clock: Clock;
  /** Subscribe to the emulator's events (as `onEvent` receives them); returns an unsubscribe function. */
  on(listener: EmulatorListener): () => void;
  /** Empties every table, recreates the defaults (same keys) and puts the clock back (`resetClock`). */
  reset(): Promise<void>;
  /** Moves the clock forward and runs what falls due. */
  advanceClock(seconds: number): Promise<AdvanceReport>;
  /**
   * Puts the clock back: to the real time, or to `clockStart` for a frozen clock (a `clock` of your own
   * only when it has `jump`). What fell due meanwhile stays as it is.
   */
  resetClock(): Promise<void>;
  /**
   * The API requests this emulator answered, newest first, with their bodies (the request journal,
   * CONTRACT §9): filter by `method`, `path` prefix, `status`, `invoiceId`, and `limit`.
   */
  requests(filter?: JournalFilter): JournalEntry[];
  /** Empties the request journal; returns how many entries it held. */
  clearRequests(): number;
  /** API faults (CONTRACT §9): make matching requests fail, before their operation or after it committed. */
  readonly faults: FaultControl;
  /**
   * Webhook chaos for the default partner (CONTRACT §9): duplicates, reordering, delays, bad and stale
   * signatures on its deliveries in `environment` (default `test`), deterministic by `seed`.
   */
  readonly webhookChaos: {
    set(spec: WebhookChaosSpec, environment?: 'test' | 'live'): void;
    get(environment?: 'test' | 'live'): WebhookChaosSpec | null;
    clear(environment?: 'test' | 'live'): void;
  };
  /** Saves the whole state (data, clock, keys, listener registrations) under `name`, replacing one of that name. */
  snapshot(name: string): Promise<SnapshotInfo>;
  /**
   * Puts a saved state back: its data, clock and keys. Deliveries of the discarded state are
   * dropped; those of the restored state resume. Rejects with `snapshot_not_found` for an unknown name.
   */
  restore(name: string): Promise<SnapshotInfo>;
  /** The saved states, newest first. */
  snapshots(): SnapshotInfo[];
  /** Deletes a saved state. */
  deleteSnapshot(name: string): void;
  /** The local chains (`chains: true`, CONTRACT §14): list, mine, pay; null without them. */
  readonly chains: EmulatorChains | null;
  /** Stops listening, lets requests in flight finish (up to 2 s), closes the database. */
  stop(): Promise<void>;
}

export type EmulatorConfigInput = Partial<Omit<EmulatorConfig, 'chains' | 'keys' | 'webhooks'>> & {
  chains?: Partial<EmulatorConfig['chains']>;
  keys?: Partial<EmulatorConfig['keys']>;
  webhooks?: Partial<EmulatorConfig['webhooks']>;
};
