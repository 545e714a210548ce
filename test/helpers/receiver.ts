/**
 * A real local webhook receiver for tests: an HTTP server on 127.0.0.1 and a random port that records
 * every request (raw body included) and answers as told: a status and body, late, never ('hang'),
 * by resetting the connection ('reset'), with a redirect, or by stalling mid-body ('stall-body').
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as it arrived. */
export interface ReceivedRequest {
  method: string;
  /** The request target, query included (`/hooks?x=1`). */
  path: string;
  /** Lower-cased names, as Node parses them. */
  headers: Record<string, string | string[] | undefined>;
  /** The body decoded as UTF-8. */
  rawBody: string;
  /** Date.now() when the body had fully arrived. */
  receivedAt: number;
}

/**
 * How to answer. A plain object answers with `status` (default 200), `body` (default "ok" for 200,
 * else "") and `headers`, after `delayMs`. `'hang'` never answers (until close); `'reset'` resets the
 * TCP connection without a response; `'stall-body'` sends 200 headers and a first body chunk, then
 * nothing more; `{ redirect }` answers 302 (or `status`) with that Location. A function decides per
 * request: it gets the request and its 1-based index among all requests received.
 */
export type Behaviour =
  | { status?: number; body?: string; headers?: Record<string, string>; delayMs?: number }
  | 'hang'
  | 'reset'
  | 'stall-body'
  | { redirect: string; status?: 301 | 302 | 307 | 308 }
  | ((req: ReceivedRequest, n: number) => Behaviour);

/** A running receiver; see {@link startReceiver}. */
export interface Receiver {
  /** `http://127.0.0.1:<port>`; append any path. */
  url: string;
  port: number;
  /** Every request received so far, in arrival order. */
  requests: ReceivedRequest[];
  /** Set what the next requests get; a function receives the request and its 1-based index. Default: 200 "ok". */
  respond(behaviour: Behaviour): void;
  /** Resolves when `count` requests (in total) have arrived, or rejects after timeoutMs (default 5000) listing what did arrive. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops the server and destroys every open socket, hung ones included. */
  close(): Promise<void>;
}

interface Waiter {
  count: number;
  resolve: (requests: ReceivedRequest[]) => void;
}

function describe(requests: readonly ReceivedRequest[]): string {
  if (requests.length === 0) return 'nothing arrived';
  return requests.map((r, i) => `#${i + 1} ${r.method} ${r.path} (${Buffer.byteLength(r.rawBody)} bytes)`).join(', ');
}

/** Applies a (resolved, non-function) behaviour to one response. */
function answer(behaviour: Exclude<Behaviour, (...args: never[]) => unknown>, res: ServerResponse, socket: Socket): void {
  if (behaviour === 'hang') return;
  if (behaviour === 'reset') {
    socket.resetAndDestroy(); // an RST, not a polite FIN: the client sees ECONNRESET
    return;
  }
  if (behaviour === 'stall-body') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial body, the rest never comes');
    return;
  }
  if ('redirect' in behaviour) {
    res.writeHead(behaviour.status ?? 302, { location: behaviour.redirect });
    res.end();
    return;
  }
  const send = (): void => {
    const status = behaviour.status ?? 200;
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...behaviour.headers });
    res.end(behaviour.body ?? (status === 200 ? 'ok' : ''));
  };
  if (behaviour.delayMs) setTimeout(send, behaviour.delayMs).unref();
  else send();
}

/** Starts a receiver on 127.0.0.1 and a free port. `behaviour` defaults to 200 "ok". */
/** `host`: the address to listen on (default 127.0.0.1; the container tests listen on 0.0.0.0, reached from a container). */
export async function startReceiver(behaviour: Behaviour = {}, { host = '127.0.0.1' }: { host?: string } = {}): Promise<Receiver> {
  let current = behaviour;
  const requests: ReceivedRequest[] = [];
  let waiters: Waiter[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      requests.push(received);
      const n = requests.length;
      let chosen = current;
      while (typeof chosen === 'function') chosen = chosen(received, n);
      answer(chosen, res, req.socket);
      waiters = waiters.filter((w) => {
        if (requests.length < w.count) return true;
        w.resolve(requests.slice());
        return false;
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Many tests fire hundreds of concurrent requests; the default backlog (511) is fine, but the
  // per-request timeouts of a Node server would otherwise cut 'hang' short.
  server.requestTimeout = 0;
  server.headersTimeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    respond(next) {
      current = next;
    },
    waitFor(count, timeoutMs = 30_000) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          count,
          resolve: (got) => {
            clearTimeout(timer);
            resolve(got);
          },
        };
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          reject(new Error(`expected ${count} request(s) within ${timeoutMs} ms, got ${requests.length}: ${describe(requests)}`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
