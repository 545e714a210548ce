import type { Server } from 'node:http';
import type { EmulatorConfig } from '../config/defaults.js';
import { expireDue } from './actions/lifecycle.js';
import type { StoreKit } from '../store/kit.js';
import { openStoreKit } from '../store/open.js';
import { VERSION } from '../version.js';
import { createApp } from './app.js';
import type { KeyCache } from './auth.js';
import { EventHub } from '../domain/event-hub.js';
import type { EmulatorEvent } from './events.js';
import { createClient, type Client } from '../client/typed.js';
import { attachInternals } from './internals.js';
import type { Imported } from './snapshots/files.js';
import type { Snapshots } from './snapshots/snapshots.js';
import { createWork, type Work } from './background.js';
import { parseWith } from './validation/parse.js';
import { loadSchemas, schemas, SCHEMAS_ON_READ } from './validation/schemas.js';
import { FaultTable, isStoredFaults } from './faults/table.js';
import { faultControl } from './faults/control.js';
import { Journal } from './journal/journal.js';
import { sharedViews, type SharedViews } from './shared-views.js';
import type { DefaultKeys } from '../contract/default-keys.js';
import type { AppDeps } from './route.js';
import type { Emulator, StartEmulatorOptions } from './emulator-api.js';
import { openApiRoute } from './routes/openapi.js';
import { chainsWanted, checkJournalSize, randomFor, resolveConfig } from './start-options.js';
import type { ChainsBoot } from './chains/boot.js';
import type { ChainsControl } from './chains/types.js';
import type { EmulatorChains } from './public-types.js';
import { type Parts, runtimeOf, type Site } from './start-parts.js';
import { close, createHttpServer, hostForUrl, listen } from './listen.js';
import { followReplicas, reportSync } from './replicas.js';
import { openClock } from './emulator-clock.js';
import { rewindClock } from './clock-reset.js';
import { Freshness } from './freshness.js';
import { LEASE_MS } from '../store/leases.js';
import { removeTempFolders } from '../store/leftovers.js';
import { keysHolder } from './keys-holder.js';
import { errorMessage } from '../domain/caught.js';

export type { Emulator, EmulatorConfigInput, StartEmulatorOptions } from './emulator-api.js';

/** Starts the emulator in-process: what `svc dev`, the tests and users' own suites all call. */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
  // The in-process API validates synchronously (faults.add, webhookChaos.set). dist/ loads zod and
  // the request schemas when they are first read; the sources load them while the database opens.
  if (SCHEMAS_ON_READ) return startWithoutSchemas(options);
  const [emulator] = await Promise.all([startWithoutSchemas(options), loadSchemas()]);
  return emulator;
}

/**
 * `svc dev` and `svc exec`: ready without loading zod, which the first request that validates a
 * body or a query loads (./validation/schemas.ts; bench #12, #16). Their emulators are driven over
 * HTTP only, never through the synchronous in-process API.
 */
export async function startWithoutSchemas(options: StartEmulatorOptions = {}): Promise<Emulator> {
  const config = resolveConfig(options);
  // Local chains (CONTRACT §14): anvil found, or one line naming its package, before anything starts;
  // their code (and viem) is loaded only then, and their nodes start while the store opens.
  const chains = chainsWanted(options, config);
  const boot = chains ? (await import('./chains/boot.js')).bootChains(chains.confirmations) : null;
  // Connections lost and found again are reported once the emulator's events exist.
  const hub = new EventHub<EmulatorEvent>();
  // The store opens once, on the engine its options name (store/open.ts); its kit holds what differs.
  let kit: StoreKit;
  try {
    kit = await openStoreKit({
      ...(options.db !== undefined ? { db: options.db } : {}),
      ...(options.database !== undefined ? { database: options.database } : {}),
      claimAs: options.owner ?? 'another emulator',
      onWarning: (message) => hub.emit({ type: 'warning', message }),
    });
  } catch (error) {
    await boot?.abandon();
    throw error;
  }
  try {
    return await serve(kit, config, options, hub, boot);
  } catch (error) {
    // Nothing may outlive a failed start: the database (and its claim) go with it, and the chains' nodes.
    await boot?.abandon();
    await kit.close();
    throw kit.explain(error);
  }
}

/** Start-up in dependency order: store (opened) → clock → keys → background work → app → listen. */
async function serve(
  kit: StoreKit,
  config: EmulatorConfig,
  options: StartEmulatorOptions,
  hub: EventHub<EmulatorEvent>,
  boot: ChainsBoot | null,
): Promise<Emulator> {
  const { db } = kit;
  const time = await openClock(kit.clock, config, options);
  const random = await randomFor(db, options.seed ?? config.seed);
  // The local chains' tables go with the rest: the chains start again from genesis. An emptied
  // emulator starts at the real time (or its --clock-start) again (issue 38).
  if (options.reset) {
    await db.clearData();
    await rewindClock(time);
  }
  const keys = await keysHolder(db, config, time.clock, random);
  if (options.onEvent) hub.on(options.onEvent);
  // `publicUrl` as an option (the in-process API) or as a setting (config file, SVC_PUBLIC_URL).
  const publicUrl = options.publicUrl ?? config.publicUrl ?? undefined;
  const site: Site = { baseUrl: publicUrl ?? '', boundHost: '' };
  // The scheduler expires invoices through the app's deps, built just below; it runs once started.
  const work = createWork(
    kit,
    time.clock,
    config,
    random,
    hub,
    options,
    (now, wait) => expireDue(deps, now, wait),
    () => freshness?.sync() ?? null,
  );
  checkJournalSize(config);
  const onSyncError = (what: string) => (error: unknown) => reportSync(hub, db, new Error(`${what}: ${errorMessage(error)}`, { cause: error }));
  // The journal: a ring in memory, or with the table the processes sharing the store write (and
  // the live views across them: ./shared-views.ts).
  const shared: SharedViews | undefined = kit.feeds ? sharedViews(kit.feeds, db, config.journalSize, onSyncError('shared views')) : undefined;
  const journal = shared?.journal ?? new Journal(config.journalSize);
  const faults = new FaultTable(
    kit.sharedValue({
      key: 'api_faults',
      topic: 'faults',
      guard: isStoredFaults,
      empty: () => [],
      onError: (error) => hub.emit({ type: 'error', message: `faults: ${errorMessage(error)}` }),
    }),
    () => time.clock.now(),
    () => random.uuid(),
  );
  await faults.reload();
  await work.chaos.reload();
  // Where replicas share the store: each request (and each claim) first takes in what the others
  // acknowledged (./freshness.ts). The clock, faults, chaos and keys were just loaded.
  const freshness = kit.sandboxVersion
    ? new Freshness(kit.sandboxVersion, async () => {
        deps.keyCache.clear();
        const moved = await time.reload();
        await faults.reload();
        await work.chaos.reload();
        await keys.reload();
        if (moved) work.scheduler.rearm();
      })
    : null;
  await freshness?.loaded();
  const snapshotEngine = await kit.snapshots((message) => hub.emit({ type: 'warning', message }));
  const parts: Parts = {
    kit,
    db,
    snapshotEngine,
    config,
    options,
    time,
    random,
    keys,
    hub,
    site,
    work,
    journal,
    faults,
    freshness,
    unfollow: () => {},
    chains: null,
  };
  const deps = appDeps(parts);
  const unfollow = followOtherReplicas(parts, deps);
  const unshare = shared?.follow(deps.runtime.streams, hub);
  parts.unfollow = () => {
    unfollow();
    unshare?.();
  };
  // Each listener's reconnect window starts now (a listen connected when the emulator died is reconnecting).
  await startListeners(work, deps.runtime.snapshots);
  const imported = options.snapshot ? await importSnapshot(work, deps.runtime.snapshots, options.snapshot) : null;
  // After an imported snapshot: its chains' states are what the chains start from.
  if (boot) parts.chains = await attachChains(boot, deps, work);

  // The routes and their handlers load with the first request (app.ts).
  const server = createHttpServer(createApp(deps, async () => [...(await import('./routes/index.js')).apiRoutes(), openApiRoute()]));
  const { port, address } = await listenOrStop(server, work, deps.runtime.snapshots, options).catch(async (error: unknown) => {
    await parts.chains?.stop();
    throw error;
  });
  if (!publicUrl) site.baseUrl = `http://${hostForUrl(options.host ?? address)}:${port}`;
  // A specific bound address is a host the emulator answers to; a wildcard one (0.0.0.0) is not.
  if (!['0.0.0.0', '::', ''].includes(options.host ?? address)) site.boundHost = options.host ?? address;
  kit.listening(site.baseUrl);
  // Attempts cut short by a crash are due again; expiries and retries that fell due while the
  // emulator was stopped run now.
  try {
    await kit.recoverClaims(options.leaseMs ?? LEASE_MS);
  } catch (error) {
    await parts.chains?.stop();
    await stopWork(work, deps.runtime.snapshots);
    await close(server);
    throw error;
  }
  work.scheduler.start();
  // What a killed emulator left in the temporary folder (../store/leftovers.ts) is looked for once
  // this one listens, not before: a readdir of a shared folder, often of hundreds of entries (~0.3 ms,
  // bench #12, #13), that nothing here waits on (tempFolder() looks first before it makes one).
  setImmediate(removeTempFolders).unref();
  return emulatorOf(parts, deps, server, { port, address, imported });
}

/**
 * What other replicas change reaches this one's caches and sleepers (./replicas.ts); where one
 * process holds the store nothing is ever heard, and this subscribes to nothing that fires.
 */
function followOtherReplicas(parts: Parts, deps: AppDeps): () => void {
  const { db, time, work, hub } = parts;
  return followReplicas(db, {
    clock: async () => {
      await time.reload();
      work.scheduler.rearm();
    },
    keys: () => deps.keyCache.clear(),
    faults: () => parts.faults.reload(),
    chaos: () => work.chaos.reload(),
    deliveries: (at) => (at === undefined ? work.dispatcher.kick() : work.scheduler.schedule(at)),
    onError: (error) => reportSync(hub, db, error),
  });
}

/** What every route and action can use (`AppDeps`). */
function appDeps(parts: Parts): AppDeps {
  const { db, config, time, random, hub, site, journal, faults, freshness } = parts;
  const keyCache: KeyCache = new Map();
  return {
    db,
    sync: () => freshness?.sync() ?? null,
    clock: time.clock,
    config,
    baseUrl: () => site.baseUrl,
    ownHosts: () => [new URL(site.baseUrl).host, ...(site.boundHost ? [site.boundHost] : [])],
    emit: (event) => hub.emit(event),
    version: VERSION,
    keyCache,
    observed: () => hub.size > 0,
    random,
    journal,
    faults,
    webhookTargets: parts.work.targets,
    runtime: runtimeOf(parts, keyCache),
  };
}

/** The listener hub's start (reconnect windows), or everything background stopped if it fails. */
async function startListeners(work: Work, snapshots: Snapshots): Promise<void> {
  try {
    await work.listeners.resumeWindows();
  } catch (error) {
    await stopWork(work, snapshots);
    throw error;
  }
}

/** Stops the background work built so far (a failed start). */
async function stopWork(work: Work, snapshots: Snapshots): Promise<void> {
  work.scheduler.stop();
  work.listeners.close();
  await work.attempter.close();
  snapshots.close();
}

/** `svc dev --snapshot <file>`: the state replaced by an exported file's before the first request. */
async function importSnapshot(work: Work, snapshots: Snapshots, file: string): Promise<Imported> {
  try {
    return await snapshots.restoreFile(file);
  } catch (error) {
    await stopWork(work, snapshots);
    throw error;
  }
}

/** The local chains, attached once the app's deps exist, or everything background stopped if that fails. */
async function attachChains(boot: ChainsBoot, deps: AppDeps, work: Work): Promise<ChainsControl> {
  try {
    return await boot.attach(deps);
  } catch (error) {
    await stopWork(work, deps.runtime.snapshots);
    throw error;
  }
}

async function listenOrStop(server: Server, work: Work, snapshots: Snapshots, options: StartEmulatorOptions) {
  try {
    return await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (error) {
    await stopWork(work, snapshots);
    throw error;
  }
}

/** The public `Emulator`: what `startEmulator` returns. */
function emulatorOf(parts: Parts, deps: AppDeps, server: Server, bound: { port: number; address: string; imported: Imported | null }): Emulator {
  const { keys, site, hub, journal, faults, work } = parts;
  const { runtime } = deps;
  const { port, address } = bound;
  let stopped: Promise<void> | undefined;
  let clients: { keys: DefaultKeys; test: Client; live: Client } | undefined;
  const emulator: Emulator = {
    url: site.baseUrl,
    port,
    address: `${address.includes(':') ? `[${address}]` : address}:${port}`,
    get keys() {
      return keys.current;
    },
    imported: bound.imported,
    get client() {
      // Rebuilt when the keys change (a restore of a snapshot with other keys); cheap, no I/O.
      const current = keys.current;
      if (clients?.keys !== current) {
        const { controlToken } = parts.config;
        clients = { keys: current, test: clientFor(site.baseUrl, current.test, controlToken), live: clientFor(site.baseUrl, current.live, controlToken) };
      }
      return clients;
    },
    clock: deps.clock,
    on: (listener) => hub.on(listener),
    reset: () => runtime.reset(),
    advanceClock: (seconds) => runtime.advanceClock(Math.round(seconds * 1000)),
    resetClock: () => runtime.resetClock(),
    requests: (filter) => journal.find(filter),
    clearRequests: () => journal.clearNow(),
    faults: faultControl(faults),
    webhookChaos: {
      set: (spec, environment = 'test') => {
        work.chaos.set(keys.current.partnerId, environment, parseWith(schemas().REQUEST_SCHEMAS.WebhookChaosRequest, spec));
      },
      get: (environment = 'test') => work.chaos.get(keys.current.partnerId, environment),
      clear: (environment = 'test') => {
        work.chaos.clear(keys.current.partnerId, environment);
      },
    },
    snapshot: (name) => runtime.snapshots.save(name),
    restore: (name) => runtime.snapshots.restore(name),
    // Synchronous for SQLite users; on PostgreSQL they serve the list this process keeps (docs/decisions.md).
    snapshots: () => runtime.snapshots.listNow(),
    deleteSnapshot: (name) => runtime.snapshots.deleteNow(name),
    chains: parts.chains ? emulatorChains(parts.chains, deps) : null,
    stop: () => (stopped ??= stopAll(parts, server, runtime.snapshots)),
  };
  // The database is reachable for our own tests (internalsOf), not through the public type.
  return attachInternals(emulator, { store: parts.kit.sqlite, query: (text) => parts.kit.query(text), streams: runtime.streams, journal });
}

/** Stops in reverse: background work and faults, the server, deliveries, then the database (after an export on exit). */
async function stopAll(parts: Parts, server: Server, snapshots: Snapshots): Promise<void> {
  const { work, faults, kit, options } = parts;
  parts.unfollow();
  work.scheduler.stop();
  work.listeners.close();
  faults.close();
  await close(server);
  // The last answered requests' entries, written before the database closes (PostgreSQL).
  await parts.journal.close?.();
  // The chains' states saved in the store (before an export on exit copies it), then their nodes stopped.
  await parts.chains?.stop();
  await work.dispatcher.close();
  await work.attempter.close();
  try {
    // After the server and the dispatcher closed: no write can come after the copy.
    if (options.exportOnExit) await snapshots.exportTo(options.exportOnExit);
  } finally {
    await kit.close();
    snapshots.close();
  }
}

/** `emulator.chains`: the control plane's chain operations, in-process (CONTRACT §9, §14). */
function emulatorChains(chains: ChainsControl, deps: AppDeps): EmulatorChains {
  return {
    list: () => chains.list(),
    mine: (networkId, blocks = 1) => chains.mine(networkId, blocks),
    pay: async (invoiceId, options) => (await import('./chains/pay.js')).payFromWallet(deps, chains, invoiceId, options),
  };
}

/** With the control token when there is one: it guards loopback clients too (CONTRACT §8). */
function clientFor(baseUrl: string, keys: { partnerKey: string; merchantKey: string }, controlToken: string | null): Client {
  return createClient({ baseUrl, partnerKey: keys.partnerKey, merchantKey: keys.merchantKey, ...(controlToken === null ? {} : { controlToken }) });
}
