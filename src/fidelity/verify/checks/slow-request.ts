import http from 'node:http';
import https from 'node:https';

/** A request whose body is held back half-way: the "first request still in flight" of CONTRACT §2. */
export interface SlowRequest {
  /** Sends the rest of the body; resolves with the answer. */
  finish(): Promise<{ status: number; text: string }>;
  /** Drops the request (a check that failed before finishing it). */
  abort(): void;
}

/**
 * Sends the headers and the first half of `body`, then waits: a service that marks an
 * Idempotency-Key as in progress when the request arrives (not when its body has) answers a second
 * request with that key 409 meanwhile. Plain node:http(s): fetch cannot hold a body back.
 */
export function startSlowRequest(url: string, method: string, headers: Record<string, string>, body: string): SlowRequest {
  const bytes = Buffer.from(body, 'utf8');
  const half = Math.floor(bytes.length / 2);
  const target = new URL(url);
  const send = target.protocol === 'https:' ? https.request : http.request;
  let settle!: (answer: { status: number; text: string }) => void;
  let fail!: (error: Error) => void;
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  answer.catch(() => undefined);
  const req = send(target, { method, headers: { ...headers, 'content-length': String(bytes.length) } }, (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => settle({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    res.on('error', fail);
  });
  req.on('error', fail);
  req.flushHeaders();
  req.write(bytes.subarray(0, half));
  return {
    finish: () => {
      req.end(bytes.subarray(half));
      return answer;
    },
    abort: () => req.destroy(),
  };
}
