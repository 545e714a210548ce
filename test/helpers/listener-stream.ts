import { expect } from 'vitest';

/** One server-sent message of the listener's stream, its data parsed. */
export interface StreamMessage {
  event: string;
  data: any;
}

export interface ListenerStream {
  /** Every message received and not yet taken by `next`. */
  readonly messages: StreamMessage[];
  /** The first message of kind `event` (already received or future); fails after `timeoutMs`. */
  next(event: string, timeoutMs?: number): Promise<StreamMessage>;
  close(): void;
}

/**
 * Opens `svc webhook listen`'s stream (`/__emulator/listener/stream`) at `baseUrl` with fetch, as the
 * CLI does, and collects its messages (raw HTTP: the typed client offers no streams).
 */
export function openListenerStream(baseUrl: string, key: string): Promise<ListenerStream> {
  return openEventStream(`${baseUrl}/__emulator/listener/stream`, key);
}

/** Any of the emulator's server-sent event streams at `url` (a path with its query), read as above. */
export async function openEventStream(url: string, key: string): Promise<ListenerStream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' }, signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const messages: StreamMessage[] = [];
  const waiters: (() => void)[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) messages.push({ event, data: JSON.parse(data) });
          for (const w of waiters.splice(0)) w();
        }
      }
    } catch {
      // aborted, or the server went away
    }
  })();
  const next = async (event: string, timeoutMs = 30_000): Promise<StreamMessage> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = messages.findIndex((m) => m.event === event);
      if (i !== -1) return messages.splice(i, 1)[0]!;
      if (Date.now() > deadline) throw new Error(`no ${event} message within ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    }
  };
  return { messages, next, close: () => controller.abort() };
}
