import type { Environment } from '../domain/environment.js';
import type { ListenerScope } from './repos/deliveries.js';

/**
 * Where the streams of `svc webhook listen` are, beyond this process (CONTRACT §12: a listener
 * connected to one replica receives the deliveries of events created through any replica). The
 * listener hub holds its own streams in memory; this is what it tells and asks the other replicas.
 * SQLite has none (one process holds every stream): the hub then behaves as it always did.
 * PostgreSQL's is SharedListenerPresence (./postgres/listener-presence.ts); the store kit gives it.
 */
export interface ListenerPresence {
  /** The first stream of this listener opened here: other replicas stop claiming its deliveries. */
  held(partnerId: string, environment: Environment): Promise<void>;
  /** The last stream of this listener here closed. */
  released(partnerId: string, environment: Environment): Promise<void>;
  /** Whether another replica holds a stream of the listener (its reconnect window does not run). */
  elsewhere(partnerId: string, environment: Environment): Promise<boolean>;
  /** The claim's scope: listener deliveries this replica may take (store/repos/deliveries.ts). */
  scope(here: string[]): ListenerScope;
  /** This replica is about to send `requestId` and waits for its result: awaited before the send. */
  expect(requestId: string, partnerId: string, environment: Environment): Promise<void>;
  /** Nobody here waits for these any more (settled, timed out, abandoned). Never rejects. */
  forget(requestId: string): void;
  /**
   * A result for a request this replica does not wait for (the balancer sent it here): handed to the
   * replica that waits, if one does and `from` owns the delivery; false otherwise.
   */
  relay(requestId: string, result: string, from: { partnerId: string; environment: Environment }): Promise<boolean>;
  /** Starts the heartbeat and the sweep; `hooks` are the hub's side. */
  start(hooks: PresenceHooks): void;
  /** Stops them, and says this replica holds no stream any more (best effort). */
  close(): Promise<void>;
}

export interface PresenceHooks {
  /** The listeners this replica holds streams of, as `partnerId:environment`. */
  here(): string[];
  /** Request ids this replica waits for. */
  waiting(): string[];
  /** A result another replica received for `requestId` (JSON of a ListenerResult). */
  result(requestId: string, result: string): void;
  /** Emulator time, for the reconnect windows the sweep starts. */
  now(): number;
  /** A dead replica's stream of this listener ended, and its reconnect window started (touched by the sweep). */
  lost(partnerId: string, environment: Environment): void;
  /** Background work failed (the database went away): reported, tried again at the next beat. */
  onError(error: unknown): void;
}

/** The key the hub and the claim's scope use for one listener. */
export const listenerKey = (partnerId: string, environment: Environment): string => `${partnerId}:${environment}`;
