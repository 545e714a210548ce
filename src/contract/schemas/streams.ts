import * as z from 'zod';
import { ATTEMPT_TRIGGERS, DELIVERY_STATUSES, DELIVERY_TARGETS, ENVIRONMENTS } from '../enums.js';
import { TESTING_SCHEMAS } from './testing.js';

/**
 * The messages of the server-sent-event streams (issue 26: "stream messages get a schema in the
 * contract like every other body"), by stream operation id and SSE event name: the `data:` line of
 * each `event: <name>` frame is one JSON value of its schema. The server writes frames through
 * `sseFrame` (src/server/http/sse-frame.ts), typed from these; the OpenAPI document lists them under
 * each stream's `text/event-stream` response (`x-svc-events`). Every stream may end with `overflow`
 * (CONTRACT §8); `: ping` comment lines carry no message.
 */

const ready = z.object({}).meta({ id: 'StreamReady', description: 'Sent once, first: the stream is attached and will miss nothing from here on.' });

const overflow = z
  .object({
    reason: z.string(),
    limitBytes: z.number().int().min(1),
    limitMessages: z.number().int().min(1),
  })
  .meta({
    id: 'StreamOverflow',
    description: 'Sent last, when this reader fell too far behind (CONTRACT §8): the stream is then closed; reconnect to resume.',
  });

const change = z
  .object({
    kind: z.enum(['request', 'delivery', 'chain']).meta({
      description: '`request`: a write was answered; `delivery`: a delivery attempt finished; `chain`: a local chain’s transfer was recorded or confirmed.',
    }),
  })
  .meta({ id: 'StreamChange', description: 'Something changed: re-read what you show.' });

const deliveryAttempt = z
  .object({
    type: z.literal('delivery.result'),
    partnerId: z.guid(),
    environment: z.enum(ENVIRONMENTS),
    invoiceId: z.guid(),
    deliveryId: z.guid(),
    eventId: z.string().meta({ description: 'The envelope `id`, `<invoiceId>-<sequence>`.' }),
    eventType: z.string(),
    url: z.string(),
    target: z.enum(DELIVERY_TARGETS),
    attempt: z.number().int().min(1),
    trigger: z.enum(ATTEMPT_TRIGGERS),
    startedAt: z.iso.datetime().meta({ description: 'Emulator time.' }),
    ok: z.boolean(),
    responseStatus: z.number().int().nullable(),
    durationMs: z.number().min(0),
    error: z.string().nullable().meta({ description: '`<kind>: <detail>` when the attempt failed.' }),
    status: z.enum(DELIVERY_STATUSES).meta({ description: "The delivery's status after this attempt." }),
    nextAttemptAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'DeliveryAttemptEvent', description: 'One finished delivery attempt (`svc webhook deliveries tail`).' });

const listenerReady = z
  .object({ partnerId: z.guid(), environment: z.enum(ENVIRONMENTS) })
  .meta({ id: 'ListenerStreamReady', description: 'Sent once, first: whose deliveries this listener receives.' });

const listenerDelivery = z
  .object({
    requestId: z.guid().meta({ description: 'Names this attempt in the result the listener reports (`POST /__emulator/listener/results`).' }),
    deliveryId: z.guid(),
    eventId: z.string(),
    eventType: z.string(),
    attempt: z.number().int().min(1),
    headers: z.record(z.string(), z.string()).meta({ description: 'The headers to forward, signature included.' }),
    body: z.string().meta({ description: 'The envelope, byte for byte the string that was signed.' }),
  })
  .meta({ id: 'ListenerDelivery', description: 'One delivery attempt for `svc webhook listen` to forward to its local URL and report.' });

export const STREAM_MESSAGES = {
  streamChanges: { ready, change, overflow },
  streamRequests: { ready, request: TESTING_SCHEMAS.JournalEntry, overflow },
  streamDeliveryAttempts: { ready, attempt: deliveryAttempt, overflow },
  streamListener: { ready: listenerReady, delivery: listenerDelivery, overflow },
};

type Streams = typeof STREAM_MESSAGES;
/** The operations that answer server-sent events. */
export type StreamId = keyof Streams;
/** The SSE event names of one stream (`ready`, `change`, `overflow`, …). */
export type StreamEventName<S extends StreamId> = keyof Streams[S] & string;
/** The last message of any stream whose reader fell behind. */
export type StreamOverflow = z.output<typeof overflow>;
/** One message of a stream, as the server writes it. */
export type StreamMessage<S extends StreamId, E extends StreamEventName<S>> = Streams[S][E] extends z.ZodType ? z.output<Streams[S][E]> : never;
