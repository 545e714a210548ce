import type { EmulatorConfig } from '../config/defaults.js';
import { errorMessage } from '../domain/caught.js';
import type { EventHub } from '../domain/event-hub.js';
import type { Random } from '../domain/random.js';
import type { StoreDb } from '../store/db.js';
import type { StoreKit } from '../store/kit.js';
import type { KeyCache } from './auth.js';
import type { Work } from './background.js';
import type { EmulatorClock } from './emulator-clock.js';
import type { StartEmulatorOptions } from './emulator-api.js';
import type { EmulatorEvent } from './events.js';
import type { FaultTable } from './faults/table.js';
import type { Freshness } from './freshness.js';
import type { RequestJournal } from './journal/journal.js';
import type { KeysHolder } from './keys-holder.js';
import { rewindClock } from './clock-reset.js';
import { deliveryAnnouncer, reportSync } from './replicas.js';
import type { Runtime } from './route.js';
import type { SnapshotEngine } from '../store/snapshot-engine.js';
import { createSnapshots, type Snapshots } from './snapshots/snapshots.js';
import { createStreams } from './streams.js';
import type { ChainsControl } from './chains/types.js';
import { listenersToKeep, restoreListeners } from '../webhooks/listener-reset.js';

// What start-up (start.ts) builds, and the control plane's runtime made from it: moved out of
// start.ts, which had grown past 400 lines, unchanged.

/** Where the emulator is reached: its public base URL (set, or known once it listens) and its bound host. */
export interface Site {
  baseUrl: string;
  boundHost: string;
}

/** What start-up builds, handed from one step to the next. */
export interface Parts {
  /** The store's kit, built by its engine where it opened (store/kit.ts). */
  kit: StoreKit;
  /** The store everything uses (src/store/db.ts): the kit's. */
  db: StoreDb;
  /** Snapshots' engine half (store/snapshot-engine.ts), the kit's. */
  snapshotEngine: SnapshotEngine;
  config: EmulatorConfig;
  options: StartEmulatorOptions;
  time: EmulatorClock;
  random: Random;
  keys: KeysHolder;
  hub: EventHub<EmulatorEvent>;
  site: Site;
  work: Work;
  journal: RequestJournal;
  faults: FaultTable;
  /** Read your writes across replicas (./freshness.ts); null where this process is the only one. */
  freshness: Freshness | null;
  /** Stops reacting to other replicas' changes (./replicas.ts): the first thing a stop does. */
  unfollow: () => void;
  /** The local chains (CONTRACT §14), once attached; null without `chains`. */
  chains: ChainsControl | null;
}

/** What the control plane drives beyond one request: reset, the clock, keys, listeners, streams, snapshots. */
export function runtimeOf(parts: Parts, keyCache: KeyCache): Runtime {
  const { db, time, keys, hub, journal } = parts;
  const { dispatcher, listeners, scheduler, chaos } = parts.work;
  // Deliveries written here wake the other replicas' dispatchers too (none where no other process shares the store).
  const announce = parts.kit.feeds
    ? deliveryAnnouncer(db, (error) => reportSync(hub, db, new Error(`replica sync: ${errorMessage(error)}`, { cause: error })))
    : () => {};
  const resetData = async () => {
    // The tables emptied and the defaults recreated in one transaction, so no request sees the
    // state without its keys (writers under load keep getting 201), and on PostgreSQL the
    // defaults cannot land before the TRUNCATE that would empty them (issue 27). A claim queued
    // from here on runs after it, on the new state; one queued before has the old epoch, and the
    // dispatcher hands its rows back unsent.
    // A running `svc webhook listen` stays registered, with the secret it printed (../webhooks/listener-reset.ts).
    const kept = await listenersToKeep(db, keys.current.partnerId);
    const cleared = db.clearData(async (tx) => {
      await keys.renewIn(tx);
      await restoreListeners(tx, kept, time.clock.now());
    });
    // Bounded under any load (CONTRACT §8): attempts in flight, chaos holds included, are
    // abandoned, not awaited; a listener holding a delivery without reporting is let go too.
    dispatcher.discard();
    listeners.abandonWaiting('the emulator was reset');
    keyCache.clear();
    await cleared;
    // A key of the discarded state cached meanwhile (a request read it before the deletes) goes too.
    keyCache.clear();
    // The other replicas' caches still hold the keys the reset revoked.
    await db.publish('keys');
    // An emptied emulator starts at the real time (or its --clock-start) again (issue 38).
    await rewindClock(time);
    scheduler.rearm();
  };
  return {
    reset: async () => {
      // The local chains' watchers stop first: nothing credits the discarded state meanwhile.
      await parts.chains?.pause();
      try {
        await resetData();
      } finally {
        // From genesis, in any case: a chain that outlived its reset would pay invoices that are gone.
        await parts.chains?.restart();
      }
    },
    advanceClock: async (ms) => {
      // Blocks first (CONTRACT §14): the payments that were confirming confirm before time moves on.
      await parts.chains?.settle();
      const from = time.clock.now();
      const report = await scheduler.advance(ms);
      if (await time.persistAdvance(ms)) scheduler.rearm();
      return { from, to: time.clock.now(), ...report };
    },
    resetClock: async () => {
      await rewindClock(time);
      // What was due stays due; what the timers were set for later is looked at again.
      scheduler.rearm();
    },
    defaultKeys: () => keys.current,
    schedule: (at) => {
      scheduler.schedule(at);
      announce(at);
    },
    resend: (delivery) => dispatcher.resend(delivery),
    extraTargets: (tx, partnerId, environment, type) => listeners.targets(tx, partnerId, environment, type),
    listeners,
    chaos,
    subscribe: (listener) => hub.on(listener),
    streams: createStreams(journal, hub),
    snapshots: snapshotsOf(parts, keyCache),
    get chains() {
      return parts.chains;
    },
  };
}

function snapshotsOf(parts: Parts, keyCache: KeyCache): Snapshots {
  const { db, time, keys } = parts;
  const { dispatcher, listeners, scheduler } = parts.work;
  return createSnapshots({
    engine: parts.snapshotEngine,
    clock: time.clock,
    quiesce: () => {
      dispatcher.discard();
      listeners.abandonWaiting('a snapshot was restored');
    },
    restored: async () => {
      keyCache.clear();
      // Before anything awaits: the scheduler looks again at the new state's due work.
      scheduler.rearm();
      await keys.renew();
      await time.persist();
      // Attempts the snapshot caught in flight are due again, like after a crash.
      await db.deliveries.releaseInFlight();
      dispatcher.kick();
      // The restored keys and due work, for the other replicas (the clock told them by persist).
      await db.publish('keys');
      await db.publish('deliveries');
      // The local chains as the restored state saved them (CONTRACT §14).
      await parts.chains?.restored();
    },
    beforeSave: async () => {
      await parts.chains?.save();
    },
    beforeRestore: async () => {
      await parts.chains?.pause();
    },
    restoreFailed: async () => {
      parts.chains?.resume();
    },
  });
}
