import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { manualClock, systemClock } from '../clock/clock.js';
import { cryptoRandom, type Random, seededRandom } from '../domain/random.js';
import { defaultConfig, type EmulatorConfig } from '../config/defaults.js';
import { releaseInFlight } from '../store/repos/deliveries.js';
import { sweepIdempotency } from '../store/repos/idempotency.js';
import { getMeta, setMeta } from '../store/repos/meta.js';
import { createAttempter } from '../webhooks/attempt.js';
import { Dispatcher } from '../webhooks/dispatcher.js';
import { ListenerHub } from '../webhooks/listener-hub.js';
import { expireDue } from './actions/lifecycle.js';
import { Scheduler } from './scheduler.js';
import { openStore, type OpenedStore } from '../store/store.js';
import { UserError } from '../errors.js';
import { DatabaseFileError, sqliteCode } from '../store/errors.js';
import { describeSqliteFailure } from '../store/file-check.js';
import { VERSION } from '../version.js';
import { createApp } from './app.js';
import { allowedHostProblem } from '../domain/allowed-hosts.js';
import { answerClientError } from './http/client-error.js';
import { clearData, ensureDefaults } from './bootstrap.js';
import { EventHub } from '../domain/event-hub.js';
import type { EmulatorEvent } from './events.js';
import { createClient, type Client } from '../client/typed.js';
import { attachInternals } from './internals.js';
import type { Imported } from './snapshots/files.js';
import { createSnapshots } from './snapshots/snapshots.js';
import type { ChaosSpec as WebhookChaosSpec } from '../contract/testing-types.js';
import { WebhookChaos } from '../webhooks/chaos.js';
import { parseWith } from './validation/parse.js';
import { loadSchemas, schemas } from './validation/schemas.js';
import { FaultTable } from './faults/table.js';
import { faultControl } from './faults/control.js';
import { Journal, MAX_JOURNAL_SIZE } from './journal/journal.js';
import type { DefaultKeys } from '../contract/default-keys.js';
import type { AppDeps, RouteDef } from './route.js';
import type { Emulator, EmulatorConfigInput, StartEmulatorOptions } from './emulator-api.js';
import { apiRoutes } from './routes/index.js';
import { createStreams } from './streams.js';
import { openApiRoute } from './routes/openapi.js';

export type { Emulator, EmulatorConfigInput, StartEmulatorOptions } from './emulator-api.js';

const CLOCK_OFFSET = 'clock_offset_ms';

/** Starts the emulator in-process: what `svc dev`, the tests and users' own suites all call. */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
  // The in-process API validates synchronously (faults.add, webhookChaos.set): zod is loaded
  // while the database opens, and is there when the emulator is.
  const [emulator] = await Promise.all([startWithoutSchemas(options), loadSchemas()]);
  return emulator;
}

/**
 * `svc dev` and `svc exec`: ready without loading zod, which the first request that validates a
 * body or a query loads (./validation/schemas.ts; bench #12, #16). Their emulators are driven over
 * HTTP only, never through the synchronous in-process API.
 */
export async function startWithoutSchemas(options: StartEmulatorOptions = {}): Promise<Emulator> {
  const config = mergeConfig(options.config);
  if (options.allowedHosts) config.allowedHosts = [...config.allowedHosts, ...options.allowedHosts];
  for (const entry of config.allowedHosts) {
    const problem = allowedHostProblem(entry);
    if (problem) throw new TypeError(`allowedHosts: ${problem}`);
  }
  // As the config file's rule: a short token is a guessable one (CONTRACT §12).
  const token = config.controlToken;
  if (token !== null && (typeof token !== 'string' || token.length < 16 || token.length > 255)) {
    throw new TypeError('controlToken must be a string of 16 to 255 characters');
  }
  const store = await openStore({ file: options.db ?? ':memory:', claimAs: options.owner ?? 'another emulator' });
  try {
    return await serve(store, config, options);
  } catch (error) {
    // Nothing may outlive a failed start: the database and its claim go with it.
    store.close();
    // A database error while starting (locked by another program past the wait, a full disk) is
    // the user's to fix: one line naming the file, not a stack trace.
    if (sqliteCode(error) && store.file !== ':memory:') throw new DatabaseFileError(store.file, describeSqliteFailure(error));
    throw error;
  }
}

async function serve(store: OpenedStore, config: EmulatorConfig, options: StartEmulatorOptions): Promise<Emulator> {
  const start = clockStartOf(options.clockStart ?? config.clockStart);
  const persistClock = !options.clock && start === null;
  const clock = options.clock ?? (start !== null ? manualClock(start) : systemClock(getMeta<number>(store, CLOCK_OFFSET) ?? 0));
  const random = randomFor(store, options.seed ?? config.seed);
  if (options.reset) clearData(store);
  let keys = ensureDefaults(store, config, clock.now(), random);

  const hub = new EventHub<EmulatorEvent>();
  if (options.onEvent) hub.on(options.onEvent);
  // `publicUrl` as an option (the in-process API) or as a setting (config file, SVC_PUBLIC_URL).
  const publicUrl = options.publicUrl ?? config.publicUrl ?? undefined;
  let baseUrl = publicUrl ?? '';
  let boundHost = '';

  const chaos = new WebhookChaos();
  const attempter = createAttempter({ maxConnectionsPerOrigin: 64, ...(options.lookup ? { lookup: options.lookup } : {}) });
  const dispatcher = new Dispatcher({
    store,
    clock,
    config,
    attempter,
    version: VERSION,
    emit: (event) => hub.emit(event),
    schedule: (at) => scheduler.schedule(at),
    sendToListener: (delivery, body, timeoutMs) => listeners.send(delivery, body, timeoutMs),
    onError: (error) => hub.emit({ type: 'error', message: (error as Error).message }),
    chaos,
  });
  const listeners: ListenerHub = new ListenerHub({
    store,
    clock,
    version: VERSION,
    random,
    kick: () => dispatcher.kick(),
    schedule: (at) => scheduler.schedule(at),
  });
  if (!Number.isInteger(config.journalSize) || config.journalSize < 0 || config.journalSize > MAX_JOURNAL_SIZE) {
    throw new TypeError(`journalSize must be a whole number from 0 to ${MAX_JOURNAL_SIZE}`);
  }
  const journal = new Journal(config.journalSize);
  const faults = new FaultTable(
    () => clock.now(),
    () => random.uuid(),
  );
  const deps: AppDeps = {
    store,
    clock,
    config,
    baseUrl: () => baseUrl,
    ownHosts: () => [new URL(baseUrl).host, ...(boundHost ? [boundHost] : [])],
    emit: (event) => hub.emit(event),
    version: VERSION,
    keyCache: new Map(),
    observed: () => hub.size > 0,
    random,
    journal,
    faults,
    runtime: {
      reset: async () => {
        // Bounded under any load (CONTRACT §8): attempts in flight, chaos holds included, are
        // abandoned, not awaited; a listener holding a delivery without reporting is let go too.
        dispatcher.discard();
        listeners.abandonWaiting('the emulator was reset');
        clearData(store);
        deps.keyCache.clear();
        keys = ensureDefaults(store, config, clock.now(), random);
      },
      advanceClock: async (ms) => {
        const from = clock.now();
        const report = await scheduler.advance(ms);
        if (persistClock) setMeta(store, CLOCK_OFFSET, clock.offset());
        return { from, to: clock.now(), ...report };
      },
      defaultKeys: () => keys,
      schedule: (at) => scheduler.schedule(at),
      resend: (delivery) => dispatcher.resend(delivery),
      extraTargets: (partnerId, environment, type) => listeners.targets(partnerId, environment, type),
      listeners,
      chaos,
      subscribe: (listener) => hub.on(listener),
      streams: createStreams(journal, hub),
      snapshots: createSnapshots({
        store,
        clock,
        quiesce: () => {
          dispatcher.discard();
          listeners.abandonWaiting('a snapshot was restored');
        },
        restored: () => {
          deps.keyCache.clear();
          keys = ensureDefaults(store, config, clock.now(), random);
          if (persistClock) setMeta(store, CLOCK_OFFSET, clock.offset());
          // Attempts the snapshot caught in flight are due again, like after a crash.
          releaseInFlight(store);
          scheduler.rearm();
          dispatcher.kick();
        },
      }),
    },
  };
  const scheduler = new Scheduler({
    store,
    clock,
    dispatcher,
    expireDue: (now) => expireDue(deps, now),
    other: { nextDueAt: () => listeners.nextRemovalAt(), run: () => listeners.sweep() },
    housekeeping: (now) => sweepIdempotency(store, now),
    onError: (error) => hub.emit({ type: 'error', message: `scheduler: ${(error as Error)?.message ?? String(error)}`, stack: (error as Error)?.stack }),
  });

  let imported: Imported | null = null;
  if (options.snapshot) {
    try {
      imported = await deps.runtime.snapshots.restoreFile(options.snapshot);
    } catch (error) {
      listeners.close();
      await attempter.close();
      deps.runtime.snapshots.close();
      throw error;
    }
  }

  const routes: RouteDef[] = [...apiRoutes(), openApiRoute()];
  const server = createServer({ keepAlive: true }, createApp(deps, routes));
  const stopBackground = () => {
    scheduler.stop();
    listeners.close();
  };
  server.on('clientError', answerClientError);
  // The body reader answers slow senders with a contract-shaped 408 after 10 s; Node's own
  // timeout (which would drop them without a body) must come later.
  server.requestTimeout = 30_000;
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 5_000;
  try {
    await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (error) {
    stopBackground();
    await attempter.close();
    deps.runtime.snapshots.close();
    throw error;
  }
  const { port, address } = server.address() as AddressInfo;
  if (!publicUrl) baseUrl = `http://${hostForUrl(options.host ?? address)}:${port}`;
  // A specific bound address is a host the emulator answers to; a wildcard one (0.0.0.0) is not.
  if (!['0.0.0.0', '::', ''].includes(options.host ?? address)) boundHost = options.host ?? address;
  store.claim?.setUrl(baseUrl);
  // Attempts cut short by a crash are due again; expiries and retries that fell due while the
  // emulator was stopped run now.
  releaseInFlight(store);
  scheduler.start();

  let stopped: Promise<void> | undefined;
  let clients: { keys: DefaultKeys; test: Client; live: Client } | undefined;
  const emulator: Emulator = {
    url: baseUrl,
    port,
    address: `${address.includes(':') ? `[${address}]` : address}:${port}`,
    get keys() {
      return keys;
    },
    imported,
    get client() {
      // Rebuilt when the keys change (a restore of a snapshot with other keys); cheap, no I/O.
      if (clients?.keys !== keys) clients = { keys, test: clientFor(baseUrl, keys.test), live: clientFor(baseUrl, keys.live) };
      return clients;
    },
    clock,
    on: (listener) => hub.on(listener),
    reset: () => deps.runtime.reset(),
    advanceClock: (seconds) => deps.runtime.advanceClock(Math.round(seconds * 1000)),
    requests: (filter) => journal.find(filter),
    clearRequests: () => journal.clear(),
    faults: faultControl(faults),
    webhookChaos: {
      set: (spec, environment = 'test') => {
        chaos.set(keys.partnerId, environment, parseWith(schemas().REQUEST_SCHEMAS.WebhookChaosRequest, spec) as WebhookChaosSpec);
      },
      get: (environment = 'test') => chaos.get(keys.partnerId, environment),
      clear: (environment = 'test') => {
        chaos.clear(keys.partnerId, environment);
      },
    },
    snapshot: (name) => deps.runtime.snapshots.save(name),
    restore: (name) => deps.runtime.snapshots.restore(name),
    snapshots: () => deps.runtime.snapshots.list(),
    deleteSnapshot: (name) => deps.runtime.snapshots.delete(name),
    stop: () =>
      (stopped ??= (async () => {
        scheduler.stop();
        listeners.close();
        faults.close();
        await close(server);
        await dispatcher.close();
        await attempter.close();
        try {
          // After the server and the dispatcher closed: no write can come after the copy.
          if (options.exportOnExit) await deps.runtime.snapshots.exportTo(options.exportOnExit);
        } finally {
          store.close();
          deps.runtime.snapshots.close();
        }
      })()),
  };
  // The database is reachable for our own tests (internalsOf), not through the public type.
  return attachInternals(emulator, { store, streams: deps.runtime.streams, journal });
}

function mergeConfig(partial: EmulatorConfigInput = {}): EmulatorConfig {
  const base = defaultConfig();
  return {
    ...base,
    ...partial,
    chains: { ...base.chains, ...partial.chains },
    keys: { test: { ...partial.keys?.test }, live: { ...partial.keys?.live } },
    webhooks: { ...base.webhooks, ...partial.webhooks },
  };
}

/** Where a clock start is invalid, say so as a setting: the CLI's flag and the config name it. */
function clockStartOf(value: string | number | Date | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms) || (typeof value === 'string' && !/^\d{4}-\d\d-\d\dT/.test(value))) {
    throw new TypeError(`clockStart must be an ISO 8601 time such as 2030-01-01T00:00:00Z, not ${JSON.stringify(value)}`);
  }
  return ms;
}

const RANDOM_EPOCH = 'random_epoch';

/**
 * A seeded source continues where the last seeded start on this database left off (its epoch), so
 * a restart never repeats ids already stored; a fresh database always starts at epoch 0.
 */
function randomFor(store: OpenedStore, seed: number | null | undefined): Random {
  if (seed === undefined || seed === null) return cryptoRandom();
  if (!Number.isSafeInteger(seed) || seed < 0) throw new TypeError(`seed must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, not ${seed}`);
  const epoch = getMeta<number>(store, RANDOM_EPOCH) ?? 0;
  store.tx(() => setMeta(store, RANDOM_EPOCH, epoch + 1));
  return seededRandom(seed, epoch);
}

function clientFor(baseUrl: string, keys: { partnerKey: string; merchantKey: string }): Client {
  return createClient({ baseUrl, partnerKey: keys.partnerKey, merchantKey: keys.merchantKey });
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, port, host));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

/** Why the emulator cannot listen, in one line a person can act on (exit 1, no stack trace). */
function listenError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new UserError(`port ${port} is already in use on ${host}; stop what uses it, or start with --port 0 to pick a free port`, 'port_in_use');
    case 'EACCES':
      return new UserError(`port ${port} on ${host} needs privileges to listen on; use a port above 1023, or --port 0 to pick a free one`, 'port_forbidden');
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UserError(`cannot listen on ${host}: it is not an address of this machine (check --host)`, 'host_unavailable');
    default:
      return error;
  }
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function close(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Requests still running after 2 s are cut: a stop must not hang on a slow client.
    setTimeout(() => server.closeAllConnections(), 2000).unref();
  });
}
