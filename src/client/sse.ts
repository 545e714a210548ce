import { request } from 'undici';
import { contractError } from './contract-error.js';
import { ApiRefusedError, ServiceUnreachableError } from './errors.js';
import { errorMessage } from '../domain/caught.js';

export interface SseMessage {
  event: string;
  data: string;
}

export interface SseStream {
  /** Resolves when the stream ends (closed by either side); rejects on a network error mid-stream. */
  done: Promise<void>;
  close(): void;
}

/** Where the caller writes what it receives: stdout, usually. */
export interface SseSink {
  readonly writableNeedDrain: boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/**
 * Opens a server-sent-events stream and calls `onMessage` for each message. Comments (heartbeats)
 * count as life: `idleTimeoutMs` without any byte ends the stream with an error, so a silently dead
 * connection is noticed and the caller can reconnect.
 *
 * With `sink`, reading stops while the sink does not drain (`svc logs tail | less`, paused): the
 * server then holds at most its bounded share (CONTRACT §8) and closes the stream with an
 * `overflow` event, instead of this process buffering everything it receives. The idle timer
 * stops while we are the ones not reading.
 */
export async function openSse(
  url: string,
  key: string,
  onMessage: (message: SseMessage) => void,
  { idleTimeoutMs = 45_000, sink, headers = {} }: { idleTimeoutMs?: number; sink?: SseSink; headers?: Record<string, string> } = {},
): Promise<SseStream> {
  const controller = new AbortController();
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      headers: {
        authorization: `Bearer ${key}`,
        accept: 'text/event-stream',
        // The control token, for a remote control plane: every stream is on it (`client.controlHeaders()`).
        ...headers,
      },
      signal: controller.signal,
      headersTimeout: 10_000,
      bodyTimeout: 0,
    });
  } catch (error) {
    throw new ServiceUnreachableError(new URL(url).origin, errorMessage(error));
  }
  if (res.statusCode !== 200) {
    const text = await res.body.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    throw new ApiRefusedError(res.statusCode, contractError(body) ?? { code: `http_${res.statusCode}`, message: text.slice(0, 200) }, null);
  }
  let idle: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve, reject) => {
    let buffer = '';
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        controller.abort();
        reject(new Error(`no data for ${idleTimeoutMs / 1000} s`));
      }, idleTimeoutMs);
    };
    touch();
    res.body.setEncoding('utf8');
    res.body.on('data', (chunk: string) => {
      touch();
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length) onMessage({ event, data: data.join('\n') });
      }
      if (sink?.writableNeedDrain && !res.body.isPaused()) {
        res.body.pause();
        clearTimeout(idle);
        sink.once('drain', () => {
          if (res.body.destroyed) return;
          touch();
          res.body.resume();
        });
      }
    });
    res.body.on('end', () => {
      clearTimeout(idle);
      resolve();
    });
    res.body.on('error', (error: Error) => {
      clearTimeout(idle);
      if (controller.signal.aborted) resolve();
      else reject(error);
    });
  });
  return {
    done,
    close: () => {
      clearTimeout(idle);
      controller.abort();
    },
  };
}
