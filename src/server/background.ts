import type { Clock } from '../clock/clock.js';
import type { EmulatorConfig } from '../config/defaults.js';
import type { Random } from '../domain/random.js';
import type { StoreDb } from '../store/db.js';
import { createAttempter } from '../webhooks/attempt.js';
import { WebhookChaos } from '../webhooks/chaos.js';
import { SharedWebhookChaos } from '../webhooks/shared-chaos.js';
import { Dispatcher } from '../webhooks/dispatcher.js';
import { ListenerHub } from '../webhooks/listener-hub.js';
import type { ListenerPresence } from '../webhooks/listener-presence.js';
import { VERSION } from '../version.js';
import type { StartEmulatorOptions } from './emulator-api.js';
import type { EventHub } from '../domain/event-hub.js';
import type { EmulatorEvent } from './events.js';
import { Scheduler } from './scheduler.js';
import { webhookTargets, type WebhookTargets } from '../webhooks/targets.js';

export /** The background work: webhook delivery, `svc webhook listen`'s hub and the clock's scheduler. */
interface Work {
  chaos: WebhookChaos;
  attempter: ReturnType<typeof createAttempter>;
  dispatcher: Dispatcher;
  listeners: ListenerHub;
  scheduler: Scheduler;
  targets: WebhookTargets;
}

/**
 * The dispatcher, the listener hub and the scheduler call one another (a delivery due at a time, a
 * listener's result kicking the dispatcher): built together, each reaching the others through closures.
 */
export function createWork(
  db: StoreDb,
  clock: Clock,
  config: EmulatorConfig,
  random: Random,
  hub: EventHub<EmulatorEvent>,
  options: StartEmulatorOptions,
  expire: (now: number, wait: boolean) => Promise<number>,
  presence?: ListenerPresence,
): Work {
  const reportError = (error: unknown) => hub.emit({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  // On PostgreSQL shared by the replicas through the store (loaded by start.ts before serving).
  const chaos = db.kind === 'postgres' ? new SharedWebhookChaos(db, reportError) : new WebhookChaos();
  // Where webhooks may go: anywhere on loopback; beyond it, no internal address unless listed (CONTRACT §8).
  const targets = webhookTargets(options.host ?? '127.0.0.1', config.webhookAllow, options.lookup);
  const attempter = createAttempter({ maxConnectionsPerOrigin: 64, allow: targets.allow, ...(options.lookup ? { lookup: options.lookup } : {}) });
  const dispatcher = new Dispatcher({
    db,
    clock,
    config,
    attempter,
    version: VERSION,
    emit: (event) => hub.emit(event),
    schedule: (at) => scheduler.schedule(at),
    sendToListener: (delivery, body, timeoutMs) => listeners.send(delivery, body, timeoutMs),
    onError: reportError,
    chaos,
    guardFor: targets.guardFor,
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    listenerScope: () => listeners.claimScope(),
  });
  const listeners: ListenerHub = new ListenerHub({
    db,
    clock,
    version: VERSION,
    random,
    kick: () => dispatcher.kick(),
    schedule: (at) => scheduler.schedule(at),
    onError: (error) => reportError(new Error(`listener: ${error instanceof Error ? error.message : String(error)}`, { cause: error })),
    ...(presence ? { presence } : {}),
  });
  const scheduler = new Scheduler({
    db,
    clock,
    dispatcher,
    expireDue: expire,
    other: { nextDueAt: () => listeners.nextRemovalAt(), run: () => listeners.sweep() },
    housekeeping: async (now, wait) => {
      await db.transaction((tx) => tx.idempotency.sweepIdempotency(now), { wait });
    },
    onError: (error) =>
      hub.emit({
        type: 'error',
        message: `scheduler: ${error instanceof Error ? error.message : String(error)}`,
        stack: error instanceof Error ? error.stack : undefined,
      }),
  });
  return { chaos, attempter, dispatcher, listeners, scheduler, targets };
}
