import type { DeliveryResultEvent } from '../webhooks/delivery-events.js';
import type { EventHub } from '../domain/event-hub.js';
import type { EmulatorEvent } from './events.js';
import type { StreamMessage } from '../contract/schemas/streams.js';
import { sseFrame } from '../webhooks/sse-frame.js';
import { SseFanout } from './http/sse-fanout.js';
import { type JournalRecord, present, type RequestJournal } from './journal/journal.js';

/** The emulator's broadcast streams (CONTRACT §8 "Streams are bounded"): one fan-out per kind. */
export interface Streams {
  /** The request journal, `GET /__emulator/requests/stream`; readers filter by record. */
  requests: SseFanout<JournalRecord>;
  /** The dashboard's change feed: one small frame per write or delivery result, the same for all. */
  changes: SseFanout<StreamMessage<'streamChanges', 'change'>['kind']>;
  /** Delivery attempts, `svc webhook deliveries tail`; readers filter by partner, environment and fields. */
  attempts: SseFanout<DeliveryResultEvent>;
}

export function createStreams(journal: Pick<RequestJournal, 'subscribe'>, hub: EventHub<EmulatorEvent>): Streams {
  return {
    // Masking and the ISO date happen here, once per entry, on the stream side.
    requests: new SseFanout(
      (record) => sseFrame('streamRequests', 'request', present(record)),
      (publish) => journal.subscribe(publish),
    ),
    changes: new SseFanout(
      (kind) => sseFrame('streamChanges', 'change', { kind }),
      (publish) =>
        hub.on((event) => {
          // Reads change nothing: the dashboard's own GETs must not make it refresh again.
          if (event.type === 'request' && event.method !== 'GET') publish('request');
          else if (event.type === 'delivery.result') publish('delivery');
          // A local chain's payment is a write no request made (CONTRACT §14).
          else if (event.type === 'chain.transfer' || event.type === 'chain.confirmed') publish('chain');
        }),
    ),
    attempts: new SseFanout(
      (event) => sseFrame('streamDeliveryAttempts', 'attempt', event),
      (publish) =>
        hub.on((event) => {
          if (event.type === 'delivery.result') publish(event);
        }),
    ),
  };
}

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The dispatcher's hand-written event and the contract's attempt message are one shape: a field added to one only does not compile. */
const attemptMatches: Equal<DeliveryResultEvent, StreamMessage<'streamDeliveryAttempts', 'attempt'>> = true;
void attemptMatches;
