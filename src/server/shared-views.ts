import type { EventHub } from '../domain/event-hub.js';
import type { DeliveryStatus } from '../contract/enums.js';
import { DELIVERY_STATUSES } from '../contract/enums.js';
import type { Change, ChangeTopic } from '../store/changes.js';
import type { StoreDb } from '../store/db.js';
import type { ReplicaFeeds } from '../store/kit.js';
import type { DeliveryResultEvent } from '../webhooks/delivery-events.js';
import type { EmulatorEvent } from './events.js';
import { SharedJournal } from './journal/shared-journal.js';
import type { Streams } from './streams.js';

/**
 * The live views across replicas (CONTRACT §12: "the dashboard's change feed shows writes made
 * through any replica"; issue 28: `svc logs tail` on one replica shows requests made through
 * another). Where the store kit has feeds, that is where several processes share the database (start.ts).
 *
 * Each replica writes its own journal entries (./journal/shared-journal.ts) and delivery attempts
 * (the dispatcher) and tells the others which ones, in a small NOTIFY: `journal` {replica, seq range},
 * `attempts` {delivery id, number, and what the result event says beyond the rows}, at most one
 * per turn of the event loop. A replica told reads those rows, in write order, and publishes them
 * into its own streams; only while someone reads them, so an unwatched replica reads nothing. Its
 * own are never echoed (the channel does not deliver a replica's notifications to itself).
 */
export interface SharedViews {
  readonly journal: SharedJournal;
  /** Starts announcing and hearing; returns the function that stops both. */
  follow(streams: Streams, hub: EventHub<EmulatorEvent>): () => void;
}

/** Results per notification: about 90 bytes each, so far below NOTIFY's 8000. */
const ATTEMPTS_PER_NOTIFY = 60;

/** The views of a replica whose journal keeps `capacity` entries (config `journalSize`). */
export function sharedViews(feeds: ReplicaFeeds, db: Pick<StoreDb, 'changes' | 'publish'>, capacity: number, onError: (error: unknown) => void): SharedViews {
  const journal = new SharedJournal(feeds.journal, db, capacity, onError);
  return {
    journal,
    follow: (streams, hub) => {
      const watched = (...fanouts: { readerCount: number }[]) => fanouts.some((f) => f.readerCount > 0);
      // One chain per topic: a notification's rows are published after the previous one's.
      const inOrder = () => {
        let tail = Promise.resolve();
        return (work: () => Promise<void>) => {
          tail = tail.then(work).catch(onError);
        };
      };
      const journalChain = inOrder();
      const attemptChain = inOrder();
      const hear = (topic: ChangeTopic, fn: (change: Change) => void) =>
        db.changes.subscribe(topic, (change) => {
          // What was said while the channel was down is lost for the live views (the table has the entries).
          if (!change.reconnected) fn(change);
        });

      const off = [
        hear('journal', (change) => {
          if (change.data.cleared !== true && !watched(streams.requests, streams.changes)) return;
          journalChain(async () => {
            for (const record of await journal.heard(change.data)) {
              if (streams.requests.readerCount > 0) streams.requests.publish(record);
              // Reads change nothing (as for this replica's own requests: streams.ts).
              if (record.method !== 'GET' && streams.changes.readerCount > 0) streams.changes.publish('request');
            }
          });
        }),
        hear('attempts', (change) => {
          if (!watched(streams.attempts, streams.changes)) return;
          const told = parseAttempts(change.data.a);
          attemptChain(async () => {
            for (const event of await resultEvents(feeds, told)) {
              if (streams.attempts.readerCount > 0) streams.attempts.publish(event);
              if (streams.changes.readerCount > 0) streams.changes.publish('delivery');
            }
          });
        }),
        // Control-plane writes elsewhere (clock, reset, restore, faults, chaos) are not in the journal:
        // the dashboard refreshes on them too.
        ...(['clock', 'keys', 'faults', 'chaos'] as const).map((topic) =>
          hear(topic, () => {
            if (streams.changes.readerCount > 0) streams.changes.publish('request');
          }),
        ),
        announceAttempts(db, hub, onError),
      ];
      return () => {
        for (const unsubscribe of off) unsubscribe();
      };
    },
  };
}

/** What a notification says of one attempt: the rows hold the rest. */
interface ToldAttempt {
  deliveryId: string;
  attempt: number;
  ok: boolean;
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  durationMs: number;
}

/**
 * This replica's attempt results, told to the others: one notification per turn of the event loop
 * (more only past ATTEMPTS_PER_NOTIFY), after the dispatcher stored them (it emits once committed).
 */
function announceAttempts(db: Pick<StoreDb, 'publish'>, hub: EventHub<EmulatorEvent>, onError: (error: unknown) => void): () => void {
  let pending: string[] = [];
  let scheduled = false;
  // Quietly: this listener must not make the server emit an event per request (hub.size counts listeners).
  return hub.onQuietly((event) => {
    if (event.type !== 'delivery.result') return;
    const next = event.nextAttemptAt === null ? '' : String(Date.parse(event.nextAttemptAt));
    pending.push([event.deliveryId, event.attempt, event.ok ? 1 : 0, event.status, next, event.durationMs].join(' '));
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const all = pending;
      pending = [];
      for (let i = 0; i < all.length; i += ATTEMPTS_PER_NOTIFY) {
        db.publish('attempts', { a: all.slice(i, i + ATTEMPTS_PER_NOTIFY).join(',') }).catch(onError);
      }
    });
  });
}

/** The attempts a notification names; what does not parse is skipped (someone else's NOTIFY). */
function parseAttempts(value: unknown): ToldAttempt[] {
  if (typeof value !== 'string') return [];
  const told: ToldAttempt[] = [];
  for (const item of value.split(',')) {
    const [deliveryId, attempt, ok, status, next, duration] = item.split(' ');
    const found = DELIVERY_STATUSES.find((s) => s === status);
    if (!deliveryId || found === undefined) continue;
    told.push({
      deliveryId,
      attempt: Number(attempt),
      ok: ok === '1',
      status: found,
      nextAttemptAt: next ? Number(next) : null,
      durationMs: Number(duration),
    });
  }
  return told;
}

/** The `delivery.result` events of `told`, from their rows, in the order the attempts were written. */
async function resultEvents(feeds: ReplicaFeeds, told: ToldAttempt[]): Promise<DeliveryResultEvent[]> {
  const byKey = new Map(told.map((t) => [`${t.deliveryId} ${t.attempt}`, t]));
  const rows = await feeds.attemptsOf([...new Set(told.map((t) => t.deliveryId))]);
  const events: DeliveryResultEvent[] = [];
  for (const row of rows) {
    const t = byKey.get(`${row.delivery_id} ${row.number}`);
    if (!t) continue;
    events.push({
      type: 'delivery.result',
      partnerId: row.partner_id,
      environment: row.environment,
      invoiceId: row.invoice_id,
      startedAt: new Date(row.started_at).toISOString(),
      deliveryId: row.delivery_id,
      eventId: row.event_id,
      eventType: row.event_type,
      url: row.url,
      target: row.target,
      attempt: row.number,
      trigger: row.trigger,
      ok: t.ok,
      responseStatus: row.response_status,
      durationMs: t.durationMs,
      error: row.error,
      status: t.status,
      nextAttemptAt: t.nextAttemptAt === null ? null : new Date(t.nextAttemptAt).toISOString(),
    });
  }
  return events;
}
