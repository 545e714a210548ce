/**
 * Issue 26: the server-sent-event streams' messages have schemas in the contract
 * (src/contract/schemas/streams.ts). Every message a real emulator sends on each of its four streams
 * (the dashboard's change feed, the request journal, delivery attempts, the listener's stream)
 * during one invoice's life is checked against the schema of its event name, unknown fields included,
 * and the OpenAPI document names those schemas under each stream's text/event-stream response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_MESSAGES, type StreamId } from '../../src/contract/schemas/streams.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.stop());

interface Message {
  event: string;
  data: unknown;
}

/** Opens a stream with fetch; `messages` fills as frames arrive (comments, `: ping`, are skipped). */
async function openStream(path: string, key?: string) {
  const controller = new AbortController();
  const res = await fetch(`${emu.url}${path}`, {
    headers: { accept: 'text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const messages: Message[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) continue;
          const [eventLine, dataLine, ...rest] = block.split('\n');
          expect(rest, block).toEqual([]);
          expect(eventLine, block).toMatch(/^event: \w+$/);
          expect(dataLine, block).toMatch(/^data: /);
          messages.push({ event: eventLine!.slice('event: '.length), data: JSON.parse(dataLine!.slice('data: '.length)) });
        }
      }
    } catch {
      // aborted
    }
  })();
  return { messages, close: () => controller.abort() };
}

async function until(test: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1500 && !test(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(test(), what).toBe(true);
}

/** Each message parses with its event's schema, and parsing drops nothing (no field the schema lacks). */
function expectValid(stream: StreamId, messages: Message[]): void {
  const schemas: Record<string, { safeParse(v: unknown): { success: boolean; data?: unknown; error?: unknown } }> = STREAM_MESSAGES[stream];
  for (const m of messages) {
    const schema = schemas[m.event];
    expect(schema, `${stream}: event ${m.event} is not in the contract`).toBeDefined();
    const parsed = schema!.safeParse(m.data);
    expect(parsed.success, `${stream} ${m.event}: ${JSON.stringify(m.data)}: ${String(parsed.error)}`).toBe(true);
    expect(parsed.data, `${stream} ${m.event}: a field the schema lacks`).toEqual(m.data);
  }
}

describe('stream messages', () => {
  it("every message of the four streams during an invoice's life matches its schema", async () => {
    const pt = emu.keys.test.partnerKey;
    expect((await emu.call('PUT', '/__emulator/listener', { key: pt, body: { forwardTo: 'http://localhost:3000/hooks' } })).status).toBe(200);
    const streams = {
      streamChanges: await openStream('/__emulator/changes'),
      streamRequests: await openStream('/__emulator/requests/stream'),
      streamDeliveryAttempts: await openStream('/__emulator/deliveries/stream', pt),
      streamListener: await openStream('/__emulator/listener/stream', pt),
    } satisfies Record<StreamId, unknown>;
    await until(() => Object.values(streams).every((s) => s.messages[0]?.event === 'ready'), 'each stream said ready first');

    const created = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '2.00' } });
    expect(created.status).toBe(201);
    await until(() => streams.streamListener.messages.some((m) => m.event === 'delivery'), 'the listener got the delivery');
    const delivery = streams.streamListener.messages.find((m) => m.event === 'delivery')!.data as { requestId: string };
    const reported = await emu.call('POST', '/__emulator/listener/results', {
      key: pt,
      body: { requestId: delivery.requestId, status: 200, body: 'ok', durationMs: 1 },
    });
    expect(reported.status).toBe(200);
    await until(() => streams.streamDeliveryAttempts.messages.some((m) => m.event === 'attempt'), 'the attempt was streamed');
    await until(() => streams.streamChanges.messages.some((m) => m.event === 'change'), 'a change was streamed');
    await until(() => streams.streamRequests.messages.some((m) => m.event === 'request'), 'the request was streamed');

    for (const [id, stream] of Object.entries(streams)) {
      stream.close();
      expectValid(id as StreamId, stream.messages);
    }
    expect(streams.streamDeliveryAttempts.messages.at(-1)!.data).toMatchObject({ type: 'delivery.result', ok: true, responseStatus: 200, target: 'listener' });
  });

  it("the OpenAPI document names each stream's messages by event, as schemas it holds", async () => {
    const doc = (await emu.call('GET', '/openapi.json')).body;
    const streamOps: [string, { 'x-svc-events'?: Record<string, { $ref: string }> }][] = [];
    for (const methods of Object.values(doc.paths) as Record<
      string,
      { operationId: string; responses: Record<string, { content?: Record<string, never> }> }
    >[]) {
      for (const op of Object.values(methods)) {
        const media = op.responses['200']?.content?.['text/event-stream'];
        if (media) streamOps.push([op.operationId, media]);
      }
    }
    expect(streamOps.map(([id]) => id).sort()).toEqual(Object.keys(STREAM_MESSAGES).sort());
    for (const [id, media] of streamOps) {
      const events = media['x-svc-events'] ?? {};
      expect(Object.keys(events).sort(), id).toEqual(Object.keys(STREAM_MESSAGES[id as StreamId]).sort());
      for (const { $ref } of Object.values(events)) expect(doc.components.schemas[$ref.replace('#/components/schemas/', '')], `${id} ${$ref}`).toBeDefined();
    }
  });
});
