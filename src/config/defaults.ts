/** The emulator's settings after defaults and the config file are merged. */
export interface EmulatorConfig {
  port: number;
  host: string;
  /** SQLite file, relative to the working directory, or ':memory:'. */
  database: string;
  invoiceLifetimeSeconds: number;
  /** Enabled networkIds per environment; merchants may narrow them further. */
  chains: { test: number[] | 'all'; live: number[] | 'all' };
  /** Keys pinned so that CI runs are reproducible (CONTRACT §1). */
  keys: {
    test: PinnedKeys;
    live: PinnedKeys;
  };
  webhooks: {
    /** Seconds to wait after each failed attempt; its length + 1 is the number of attempts. */
    retrySchedule: number[];
    timeoutMs: number;
  };
  /** Serve /__emulator/ to non-loopback clients too. */
  exposeControlPlane: boolean;
  /** Serve /__emulator/ to any client sending this bearer token (CONTRACT §12); null: none. */
  controlToken: string | null;
  /** The base URL clients use (a container's published address, a balancer); null: the bound one. */
  publicUrl: string | null;
  /** Hosts served beyond loopback and the emulator's own (CONTRACT §8); `all` lifts the check. */
  allowedHosts: string[];
  /** Internal webhook receivers (host names, addresses, CIDR ranges) an emulator listening beyond loopback may deliver to (CONTRACT §8). */
  webhookAllow: string[];
  /** How many API requests the request journal keeps (CONTRACT §9); 0 turns it off. */
  journalSize: number;
  /** Derive generated ids and keys from this seed (CONTRACT §9 deterministic runs); null: random. */
  seed: number | null;
  /** Start the clock here, frozen unless advanced (ISO 8601); null: the wall clock. */
  clockStart: string | null;
  /** Run a local chain per EVM test network (CONTRACT §14, `svc dev --chains`; config `chains: true`). */
  localChains: boolean;
  /** Blocks a local chain's payment needs, its own included, before it is confirmed (default 2). */
  chainConfirmations: number;
}

export interface PinnedKeys {
  partnerKey?: string;
  merchantKey?: string;
}

export const DEFAULT_PORT = 4747;
export const DEFAULT_DATABASE = '.svc/emulator.sqlite';

/** Standard Webhooks' schedule (CONTRACT §5): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const STANDARD_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

export function defaultConfig(): EmulatorConfig {
  return {
    port: DEFAULT_PORT,
    host: '127.0.0.1',
    database: DEFAULT_DATABASE,
    invoiceLifetimeSeconds: 3600,
    chains: { test: 'all', live: 'all' },
    keys: { test: {}, live: {} },
    webhooks: { retrySchedule: [...STANDARD_RETRY_SCHEDULE], timeoutMs: 10_000 },
    exposeControlPlane: false,
    controlToken: null,
    publicUrl: null,
    allowedHosts: [],
    webhookAllow: [],
    journalSize: 1000,
    seed: null,
    clockStart: null,
    localChains: false,
    chainConfirmations: 2,
  };
}
