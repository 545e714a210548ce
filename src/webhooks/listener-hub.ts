import { randomUUID } from 'node:crypto';
import type { Random } from '../domain/random.js';
import type { ServerResponse } from 'node:http';
import { sseFrame } from './sse-frame.js';
import { SseWriter } from './sse-writer.js';
import type { Clock } from '../clock/clock.js';
import type { Environment } from '../domain/environment.js';
import { generateSecret } from '../domain/keys.js';
import type { DeliveryRow } from '../store/repos/deliveries.js';
import type { ListenerRow } from '../store/repos/listeners.js';
import type { Repos, StoreDb } from '../store/db.js';
import type { AttemptResult } from './attempt.js';
import { deliveryHeaders } from './delivery-headers.js';
import type { InvoiceEventType } from './envelope.js';
import { parseEventTypes } from '../store/json-columns.js';
import type { ListenerScope } from '../store/repos/deliveries.js';
import { type ListenerPresence, listenerKey } from '../store/listener-presence.js';
import { failed, LISTENER_BODY_LIMIT, type ListenerResult, resultOf, storedResult } from './listener-result.js';

interface Connection {
  /** Bounded (CONTRACT §8): a listener that stops reading is closed, and its deliveries retry. */
  writer: SseWriter;
  /** How long the listener itself waits for the app (`--timeout`), so we wait a little longer. */
  forwardTimeoutMs: number;
  /** Deliveries sent down this stream whose result has not come back. */
  pending: Set<string>;
}

interface Waiting {
  resolve(result: AttemptResult): void;
  timer: NodeJS.Timeout;
  /** Whose delivery it is: only that partner, in that environment, may report its result. */
  partnerId: string;
  environment: Environment;
  connection: Connection;
}

/** Who reports a result: the principal of the listener's key. */
export interface Reporter {
  partnerId: string;
  environment: Environment;
}

const HEARTBEAT_MS = 15_000;
/**
 * How long a registered listener with no stream is kept, on the emulator clock: the time
 * `svc webhook listen` itself keeps trying to reconnect (docs/webhooks.md, 5 minutes). Past it the
 * listener vanished without saying goodbye (killed, laptop closed): it is removed, so events stop
 * piling up deliveries nobody will take. A listen that comes back later registers again.
 */
export const RECONNECT_WINDOW_MS = 5 * 60_000;

/**
 * The emulator's side of `svc webhook listen` (CONTRACT §7): listeners register per partner and
 * environment, hold a server-sent-events stream open, receive deliveries signed with their stable
 * secret, and post each result back. Listener deliveries are ordinary deliveries (outbox, retries);
 * only the last hop differs. A listener that reconnects gets what it missed at once.
 */
export class ListenerHub {
  private readonly connections = new Map<string, Set<Connection>>();
  private readonly waiting = new Map<string, Waiting>();
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly deps: {
      db: StoreDb;
      clock: Clock;
      version: string;
      kick(): void;
      random: Random;
      /** Wake the scheduler by `at` (a reconnect window ends then). */
      schedule?(at: number): void;
      /** A write made outside any request (a stream opened or closed) failed: reported, not thrown. */
      onError?(error: unknown): void;
      /** The other replicas' streams (PostgreSQL, CONTRACT §12); none on SQLite: this process holds them all. */
      presence?: ListenerPresence;
    },
  ) {
    // Comments keep idle proxies and the client's own liveness check satisfied.
    this.heartbeat = setInterval(() => this.broadcast(': ping\n\n'), HEARTBEAT_MS).unref();
    deps.presence?.start({
      here: () => [...this.connections.keys()],
      waiting: () => [...this.waiting.keys()],
      result: (requestId, json) => this.settle(requestId, storedResult(json)),
      now: () => this.deps.clock.now(),
      // A dead replica held its stream: its window started at the sweep; the scheduler wakes at its end.
      lost: () => this.deps.schedule?.(this.deps.clock.now() + RECONNECT_WINDOW_MS),
      onError: (error) => this.deps.onError?.(error),
    });
  }

  /** The listener deliveries a claim of this replica may take (PostgreSQL); undefined: all of them. */
  claimScope(): ListenerScope | undefined {
    return this.deps.presence?.scope([...this.connections.keys()]);
  }

  /** Whether a stream of the listener is open here or, on PostgreSQL, on another replica. */
  private async connectedAnywhere(partnerId: string, environment: Environment): Promise<boolean> {
    return this.isConnected(partnerId, environment) || ((await this.deps.presence?.elsewhere(partnerId, environment)) ?? false);
  }

  /**
   * The listener's last stream here closed: its reconnect window starts now (not when it connected),
   * then, on PostgreSQL, other replicas may claim its deliveries again (they fail there until it is
   * back). In that order: with the row gone before the touch, another replica judging the window
   * would see neither a stream nor a recent touch. A stopped emulator writes nothing.
   */
  private windowStarts(partnerId: string, environment: Environment): void {
    if (this.closed) return;
    const now = this.deps.clock.now();
    this.deps.db.listeners
      .touchListener(partnerId, environment, now)
      .then(() => this.deps.presence?.released(partnerId, environment))
      .catch((error: unknown) => this.deps.onError?.(error));
    this.deps.schedule?.(now + RECONNECT_WINDOW_MS);
  }

  /**
   * This emulator just started: no listener can have been connected to it, so each one's window
   * starts now (a listen that was connected when the emulator died is reconnecting right now).
   * Awaited by start-up before the scheduler looks at the windows.
   */
  async resumeWindows(): Promise<void> {
    const now = this.deps.clock.now();
    // Most starts have none: no transaction then (a group commit waits a turn of the event loop).
    if ((await this.deps.db.listeners.activeListeners()).length === 0) return;
    await this.deps.db.transaction(async (tx) => {
      for (const row of await tx.listeners.activeListeners()) await tx.listeners.touchListener(row.partner_id, row.environment, now);
    });
  }

  /** Registers (or updates) the partner's listener; the secret stays what it was. */
  register(partnerId: string, environment: Environment, forwardTo: string, events: InvoiceEventType[] | null): Promise<ListenerRow> {
    const now = this.deps.clock.now();
    // Read and write in one transaction: two registrations at once keep one secret.
    return this.deps.db.transaction(async (tx) => {
      const existing = await tx.listeners.findListener(partnerId, environment);
      return tx.listeners.saveListener({ partnerId, environment, secret: existing?.secret ?? generateSecret(), events, forwardTo, active: true }, now);
    });
  }

  /** The stable listener secret, created on first use (for `--print-secret`). */
  secret(partnerId: string, environment: Environment): Promise<string> {
    const now = this.deps.clock.now();
    return this.deps.db.transaction(async (tx) => {
      const existing = await tx.listeners.findListener(partnerId, environment);
      if (existing) return existing.secret;
      const row = await tx.listeners.saveListener({ partnerId, environment, secret: generateSecret(), events: null, forwardTo: '', active: false }, now);
      return row.secret;
    });
  }

  /**
   * The listener is removed (a clean stop of listen, `svc webhook listeners --remove`, or its
   * reconnect window ran out): no new deliveries are created for it, and those still waiting end
   * `failed` with `reason`. The row stays (inactive) so that the secret survives for the next listen.
   */
  unregister(partnerId: string, environment: Environment, reason = 'listener_removed: the listener was unregistered'): Promise<void> {
    return this.deps.db.transaction((tx) => this.unregisterIn(tx, partnerId, environment, reason));
  }

  /** `unregister` inside the caller's transaction. */
  private async unregisterIn(tx: Repos, partnerId: string, environment: Environment, reason: string): Promise<void> {
    const existing = await tx.listeners.findListener(partnerId, environment);
    if (!existing) return;
    const now = this.deps.clock.now();
    await tx.listeners.saveListener(
      { partnerId, environment, secret: existing.secret, events: parseEventTypes(existing.events), forwardTo: existing.forward_to, active: false },
      now,
    );
    await tx.listeners.endListenerDeliveries(partnerId, environment, now, reason);
  }

  /**
   * The row if the listener is registered, after removing it when it has had no stream for longer
   * than its reconnect window (checked when the emulator needs to know: an event, an attempt, a list).
   * With `tx` (the outbox's transaction), reads and the removal happen in it; without, the removal
   * is a transaction of its own.
   */
  private async live(partnerId: string, environment: Environment, tx?: Repos): Promise<ListenerRow | undefined> {
    const row = await (tx ?? this.deps.db).listeners.findListener(partnerId, environment);
    if (row?.active !== 1) return undefined;
    if (this.isConnected(partnerId, environment) || this.deps.clock.now() - row.updated_at < RECONNECT_WINDOW_MS) return row;
    // Past the window as this replica sees it: a stream on another replica still keeps it (CONTRACT §12).
    if (await this.deps.presence?.elsewhere(partnerId, environment)) return row;
    const reason = 'listener_removed: the listener was gone for longer than its 5-minute reconnect window';
    if (tx) await this.unregisterIn(tx, partnerId, environment, reason);
    else await this.unregister(partnerId, environment, reason);
    return undefined;
  }

  /** The partner's registered listener in `environment`, as `GET /__emulator/listeners` shows it (0 or 1). */
  async list(partnerId: string, environment: Environment) {
    const row = await this.live(partnerId, environment);
    if (!row) return [];
    const connected = await this.connectedAnywhere(partnerId, environment);
    return [
      {
        id: environment,
        environment,
        forwardTo: row.forward_to,
        events: parseEventTypes(row.events),
        connected,
        removeAt: connected ? null : new Date(row.updated_at + RECONNECT_WINDOW_MS).toISOString(),
        updatedAt: new Date(row.updated_at).toISOString(),
      },
    ];
  }

  /** When the next registered listener without a stream reaches the end of its reconnect window. */
  async nextRemovalAt(): Promise<number | null> {
    const ends: number[] = [];
    for (const row of await this.deps.db.listeners.activeListeners()) {
      if (!(await this.connectedAnywhere(row.partner_id, row.environment))) ends.push(row.updated_at + RECONNECT_WINDOW_MS);
    }
    return ends.length ? Math.min(...ends) : null;
  }

  /** Removes every listener whose reconnect window has ended (the scheduler runs it when one is due). */
  async sweep(): Promise<void> {
    for (const row of await this.deps.db.listeners.activeListeners()) await this.live(row.partner_id, row.environment);
  }

  /** The outbox asks, inside its transaction `tx`: which listeners want this event? One target per active, matching listener. */
  async targets(tx: Repos, partnerId: string, environment: Environment, type: InvoiceEventType): Promise<{ url: string }[]> {
    const row = await this.live(partnerId, environment, tx);
    if (!row) return [];
    const events = parseEventTypes(row.events);
    return events && !events.includes(type) ? [] : [{ url: row.forward_to }];
  }

  /** Holds `res` open as the listener's stream; what it missed while away falls due now. */
  attach(partnerId: string, environment: Environment, res: ServerResponse, forwardTimeoutMs: number): void {
    const key = listenerKey(partnerId, environment);
    const connection: Connection = { writer: new SseWriter(res), forwardTimeoutMs, pending: new Set() };
    let set = this.connections.get(key);
    if (!set) this.connections.set(key, (set = new Set()));
    set.add(connection);
    // Closed by the listener, or by us when it fell too far behind (an overflow).
    connection.writer.onClose(() => {
      set.delete(connection);
      if (!set.size) {
        this.connections.delete(key);
        // Other replicas may claim its deliveries again (they fail there until it comes back).
        this.windowStarts(partnerId, environment);
      }
      // Nobody can report these any more: fail them now (they follow the retry schedule), rather
      // than hold the dispatcher, and the clock advance or reset that waits on it, until they time out.
      for (const requestId of [...connection.pending]) {
        this.settle(requestId, failed('listener_disconnected: the listener went away before reporting the result'));
      }
    });
    // As before the store was asynchronous: the window is touched before `ready`, and what the
    // listener missed is woken after it. On PostgreSQL the stream is recorded before `ready`: from
    // then on no other replica claims this listener's deliveries, and this one's claims take them.
    const { db, clock, presence } = this.deps;
    db.listeners
      .touchListener(partnerId, environment, clock.now())
      .then(async () => {
        await presence?.held(partnerId, environment);
        connection.writer.send(sseFrame('streamListener', 'ready', { partnerId, environment }));
        if ((await db.listeners.wakeListenerDeliveries(partnerId, environment, clock.now())) > 0) this.deps.kick();
      })
      .catch((error: unknown) => this.deps.onError?.(error));
  }

  isConnected(partnerId: string, environment: Environment): boolean {
    return (this.connections.get(listenerKey(partnerId, environment))?.size ?? 0) > 0;
  }

  /** One attempt of a listener delivery: push it down the stream and wait for the listener's report. */
  async send(delivery: DeliveryRow, body: string, timeoutMs: number): Promise<AttemptResult> {
    const listener = await this.live(delivery.partner_id, delivery.environment);
    if (!listener) return { ...failed('listener_removed: the listener this delivery was for is no longer registered'), final: true };
    const connection = [...(this.connections.get(listenerKey(delivery.partner_id, delivery.environment)) ?? [])].find((c) => c.writer.open);
    if (!connection) {
      return failed('listener_unavailable: no `svc webhook listen` is connected for this partner and environment');
    }
    const requestId = randomUUID();
    // PostgreSQL: the result may come back through another replica, which must find who waits for it.
    if (this.deps.presence) {
      try {
        await this.deps.presence.expect(requestId, delivery.partner_id, delivery.environment);
      } catch (error) {
        return failed(`listener_unavailable: the attempt could not be recorded (${error instanceof Error ? error.message : String(error)})`);
      }
      if (!connection.writer.open) return failed('listener_disconnected: the listener went away before the delivery was sent');
    }
    const headers = deliveryHeaders(body, listener.secret, {}, this.deps.version);
    const wait = Math.max(timeoutMs, connection.forwardTimeoutMs + 5000);
    return new Promise<AttemptResult>((resolve) => {
      const timer = setTimeout(() => this.settle(requestId, failed(`timeout: the listener did not report within ${wait} ms`, wait)), wait);
      this.waiting.set(requestId, { resolve, timer, partnerId: delivery.partner_id, environment: delivery.environment, connection });
      connection.pending.add(requestId);
      const message = {
        requestId,
        deliveryId: delivery.id,
        eventId: delivery.event_id,
        eventType: delivery.event_type,
        attempt: delivery.attempt_count + 1,
        headers,
        body,
      };
      // An overflow here closes the stream, which fails this attempt at once (it stays retrying).
      connection.writer.send(sseFrame('streamListener', 'delivery', message));
    });
  }

  /**
   * The listener's report for one request; false when nobody waits for it (late, or unknown), and
   * when it comes from another partner or environment than the delivery's (CONTRACT §8): to them,
   * a request id they do not own is indistinguishable from one that does not exist.
   */
  async report(requestId: string, result: ListenerResult, from: Reporter): Promise<boolean> {
    const waiting = this.waiting.get(requestId);
    if (!waiting) {
      // Sent by another replica (the balancer chose this one for the result): handed to it through the store.
      const short = { ...result, body: result.body === null ? null : result.body.slice(0, LISTENER_BODY_LIMIT) };
      return this.deps.presence ? this.deps.presence.relay(requestId, JSON.stringify(short), from) : false;
    }
    if (waiting.partnerId !== from.partnerId || waiting.environment !== from.environment) return false;
    this.settle(requestId, resultOf(result));
    return true;
  }

  /** Fails every attempt still waiting for a listener (a reset: their rows are about to go). */
  abandonWaiting(reason: string): void {
    for (const id of [...this.waiting.keys()]) this.settle(id, failed(`listener_unavailable: ${reason}`));
  }

  /** Resolves one waiting attempt, once, and forgets it everywhere. */
  private settle(requestId: string, result: AttemptResult): void {
    const waiting = this.waiting.get(requestId);
    if (!waiting) return;
    this.waiting.delete(requestId);
    this.deps.presence?.forget(requestId);
    waiting.connection.pending.delete(requestId);
    clearTimeout(waiting.timer);
    waiting.resolve(result);
  }

  /** Ends every stream (stop, reset); waiting attempts fail and retry later. */
  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    this.abandonWaiting('the emulator stopped');
    for (const set of this.connections.values()) for (const c of set) c.writer.end();
    this.connections.clear();
    // The other replicas need not wait for this one's stream rows to expire; at worst they do.
    this.deps.presence?.close().catch(() => {});
  }

  /** Listeners registered (for status and tests). */
  async registered(): Promise<ListenerRow[]> {
    const rows: ListenerRow[] = [];
    for (const row of await this.deps.db.listeners.activeListeners()) if (await this.live(row.partner_id, row.environment)) rows.push(row);
    return rows;
  }

  private broadcast(text: string): void {
    for (const set of this.connections.values()) for (const c of set) c.writer.send(text);
  }
}
