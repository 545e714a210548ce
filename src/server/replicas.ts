import type { Change, ChangeTopic } from '../store/changes.js';
import type { StoreDb } from '../store/db.js';
import { errorMessage } from '../domain/caught.js';
import type { EventHub } from '../domain/event-hub.js';
import type { EmulatorEvent } from './events.js';

/**
 * What this replica does when another one, on the same PostgreSQL database, changed shared state
 * (CONTRACT §12 "Many replicas, one sandbox"; ARCHITECTURE habit 13): each cache reloads, each
 * sleeper wakes. Never called where one process holds the store (src/store/changes.ts).
 */
export interface ReplicaReactions {
  /** The clock was advanced or restored elsewhere: reload the offset, look again at what falls due. */
  clock(): Promise<void>;
  /** Keys were revoked elsewhere (a reset, a restore, a pinned key replacing a default): forget cached ones. */
  keys(): void;
  /** Deliveries were written elsewhere, due at `at` (or now): the dispatcher may have room for them. */
  deliveries(at: number | undefined): void;
  /** Faults or chaos changed elsewhere: reload them. */
  faults?(): Promise<void>;
  chaos?(): Promise<void>;
  /** A reaction failed (the database went away meanwhile): reported, never thrown. */
  onError(error: unknown): void;
}

/** Subscribes `reactions` to the store's changes; returns the function that unsubscribes them all. */
export function followReplicas(db: StoreDb, reactions: ReplicaReactions): () => void {
  const guard = (run: () => Promise<void> | void) => {
    try {
      const result = run();
      if (result) result.catch((error: unknown) => reactions.onError(new Error(`replica sync: ${errorMessage(error)}`, { cause: error })));
    } catch (error) {
      reactions.onError(error);
    }
  };
  const on = (topic: ChangeTopic, fn: (change: Change) => Promise<void> | void) => db.changes.subscribe(topic, (change) => guard(() => fn(change)));
  const off = [
    on('clock', () => reactions.clock()),
    on('keys', () => reactions.keys()),
    // After a reconnect, whatever was written meanwhile is due now, as far as this replica knows.
    on('deliveries', (change) => reactions.deliveries(typeof change.data.at === 'number' ? change.data.at : undefined)),
    on('faults', () => reactions.faults?.()),
    on('chaos', () => reactions.chaos?.()),
  ];
  return () => {
    for (const unsubscribe of off) unsubscribe();
  };
}

/**
 * Tells the other replicas that deliveries were written, due at `at`: at most one notification per
 * turn of the event loop (the earliest `at`), however many events a burst of requests created.
 * Only where other processes share the store (start-parts.ts).
 */
export function deliveryAnnouncer(db: StoreDb, onError: (error: unknown) => void): (at: number) => void {
  let pending: number | null = null;
  return (at) => {
    if (pending !== null) {
      pending = Math.min(pending, at);
      return;
    }
    pending = at;
    setImmediate(() => {
      const earliest = pending ?? at;
      pending = null;
      db.publish('deliveries', { at: earliest }).catch(onError);
    });
  };
}

/**
 * A failed reload or announcement between replicas: a warning while the database is away (the
 * channel reloads everything once it reconnects; CONTRACT §12), an error otherwise.
 */
export function reportSync(hub: EventHub<EmulatorEvent>, db: Pick<StoreDb, 'condition'>, error: unknown): void {
  if (db.condition(error) === 'unavailable') hub.emit({ type: 'warning', message: errorMessage(error) });
  else hub.emit({ type: 'error', message: errorMessage(error) });
}
