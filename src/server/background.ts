import type { Clock } from '../clock/clock.js';
import type { EmulatorConfig } from '../config/defaults.js';
import type { Random } from '../domain/random.js';
import type { StoreKit } from '../store/kit.js';
import { createAttempter } from '../webhooks/attempt.js';
import { isStoredChaos, WebhookChaos } from '../webhooks/chaos.js';
import { Dispatcher } from '../webhooks/dispatcher.js';
import { ListenerHub } from '../webhooks/listener-hub.js';
import { LEASE_MS } from '../store/leases.js';
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
  kit: StoreKit,
  clock: Clock,
  config: EmulatorConfig,
  random: Random,
  hub: EventHub<EmulatorEvent>,
  options: StartEmulatorOptions,
  expire: (now: number, wait: boolean) => Promise<number>,
  /** Read your writes across replicas before each claim (./freshness.ts); known once start-up built it. */
  sync: () => Promise<void> | null = () => null,
): Work {
  const { db } = kit;
  const reportError = (error: unknown) => hub.emit({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  // Shared by the sandbox's processes as its kit keeps it (loaded by start.ts before serving).
  const chaos = new WebhookChaos(kit.sharedValue({ key: 'webhook_chaos', topic: 'chaos', guard: isStoredChaos, empty: () => ({}), onError: reportError }));
  // Where other processes' listener streams are: none where this one holds every stream.
  const presence = kit.presence(options.leaseMs ?? LEASE_MS);
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
    leases: (hooks) => kit.leases(options.leaseMs, hooks),
    sync,
    guardFor: targets.guardFor,
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
