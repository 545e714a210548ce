import type { StreamEventName, StreamId, StreamMessage, StreamOverflow } from '../contract/schemas/streams.js';

/**
 * One server-sent-event frame of a stream the contract declares (src/contract/schemas/streams.ts):
 * `event: <name>` and its message as one `data:` line of JSON. Typed from the contract, so a message
 * of another shape, or an event the stream does not have, does not compile; the schemas are not
 * loaded here (types only), so writing a frame costs what it did before.
 */
export function sseFrame<S extends StreamId, E extends StreamEventName<S>>(_stream: S, event: E, message: StreamMessage<S, E>): string {
  // JSON.stringify escapes line breaks inside strings: the message stays on its one `data:` line.
  return `event: ${event}\ndata: ${JSON.stringify(message)}\n\n`;
}

/** The `overflow` frame every stream ends with when its reader falls behind (the writer knows no stream). */
export function overflowFrame(message: StreamOverflow): string {
  return `event: overflow\ndata: ${JSON.stringify(message)}\n\n`;
}
