import type { Clock } from '../clock/clock.js';
import type { EmulatorConfig } from '../config/defaults.js';
import type { StoreDb } from '../store/db.js';
import type { DeliveryRow, ListenerScope } from '../store/repos/deliveries.js';
import type { Attempter, AttemptGuard, AttemptResult } from './attempt.js';
import type { Environment } from '../domain/environment.js';
import type { WebhookChaos } from './chaos.js';
import type { DeliveryEvent } from './delivery-events.js';
import type { Completion } from './completion.js';
import type { ClaimLeases, LeaseHooks } from '../store/leases.js';

/** What the dispatcher (dispatcher.ts) is built with. */
export interface DispatcherDeps {
  db: StoreDb;
  clock: Clock;
  config: EmulatorConfig;
  attempter: Attempter;
  version: string;
  emit(event: DeliveryEvent): void;
  /** A retry falls due at `at`: the scheduler must wake by then (the clock flows on its own). */
  schedule?: (at: number) => void;
  /** Sends a listener delivery (`svc webhook listen`); without one, listener deliveries fail and retry. */
  sendToListener?: (delivery: DeliveryRow, body: string, timeoutMs: number) => Promise<AttemptResult>;
  /** Background work failed on the database (a lock held elsewhere, a full disk); it is tried again. */
  onError?: (error: unknown) => void;
  /** The guard an attempt of this environment runs under (./targets.ts); default: live public-only, test none. */
  guardFor?: (environment: Environment) => AttemptGuard;
  /** Webhook chaos in force (CONTRACT §9), consulted as each attempt starts. */
  chaos?: WebhookChaos;
  /**
   * Takes in what other replicas changed before each claim (server/freshness.ts): the chaos an
   * attempt is decided with must be the sandbox's. Null where nothing can change unseen.
   */
  sync?: () => Promise<void> | null;
  /** The claims' leases, as the store's engine keeps them (store/leases.ts); none by default. */
  leases?: (hooks: LeaseHooks) => ClaimLeases;
  /** Which listener deliveries this replica's claims may take (PostgreSQL: where their streams are). */
  listenerScope?: () => ListenerScope | undefined;
}

/**
 * A claimed delivery handed back unattempted, with the claim's token (only that claim's hold is let
 * go); null where claims hold no lease (SQLite).
 */
export interface Release {
  id: string;
  token: string | null;
}

/**
 * A result to write, the token of the claim it belongs to (null: a manual attempt, or a claim without
 * a lease), and the receiver slot it frees once written (a scheduled attempt's; see `start`).
 */
export type HeldCompletion = Completion & { lease: string | null; slot?: { receiver: string; url: string } };
