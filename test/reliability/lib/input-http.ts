/**
 * HTTP clients for the reliability suite's bad-input and idempotency-race files: one over `node:http`
 * (well-formed requests, many sockets at once) and one over raw `net` sockets (bytes Node's client
 * refuses to send: control characters in headers, oversized headers, broken framing, bodies that
 * stall or never end). Both return the response as it arrived on the wire.
 */
import http from 'node:http';
import net from 'node:net';

export interface WireResponse {
  status: number;
  /** Lower-cased names; a repeated header keeps its last value. */
  headers: Record<string, string>;
  /** The body, decoded as UTF-8. */
  text: string;
  /** Milliseconds from the first byte written to the complete response. */
  elapsedMs: number;
}

/** A `node:http` agent with no socket limit: every request of a burst gets its own connection. */
export function burstAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });
}

export interface HttpRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** Sends one request with `node:http`; rejects only when no response arrives within `timeoutMs`. */
export function httpRequest(port: number, agent: http.Agent, req: HttpRequest, timeoutMs = 30_000): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...req.headers };
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    if (body && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(body.length);
    let answered = false;
    const timer = setTimeout(() => {
      r.destroy();
      reject(new Error(`${req.method} ${req.path}: no response within ${timeoutMs} ms`));
    }, timeoutMs);
    const r = http.request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        const flat: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString('utf8'), elapsedMs: Date.now() - started });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    r.on('error', (error) => {
      if (answered) return;
      clearTimeout(timer);
      reject(new Error(`${req.method} ${req.path}: ${error.message}`));
    });
    r.end(body);
  });
}

/** Parses the head of an HTTP/1.1 response; null until `\r\n\r\n` has arrived. */
function parseHead(buf: Buffer): { status: number; headers: Record<string, string>; bodyAt: number } | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const [statusLine = '', ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) throw new Error(`not an HTTP response: ${JSON.stringify(statusLine.slice(0, 100))}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  return { status: Number(m[1]), headers, bodyAt: end + 4 };
}

export interface RawPlan {
  /** Request line and headers, `\r\n`-separated, ending with the empty line. Sent as Latin-1. */
  head: string;
  /** Bytes sent right after the head. */
  body?: string | Buffer;
  /**
   * After `body`, keeps writing this many more bytes in 64 KiB pieces (with backpressure) until the
   * server answers: a body that never ends early enough.
   */
  stream?: { total: number; chunked: boolean; tail: string };
  /** After `body`, writes these bytes one at a time, `everyMs` apart, until the server answers: a trickle. */
  trickle?: { bytes: string; everyMs: number };
  /** Gives up after this long without a complete response (default 30 s). */
  timeoutMs?: number;
}

/**
 * One request on a fresh TCP connection, written byte for byte, and the response read back. Never
 * sends anything after the server has started answering; closes the connection once the response
 * is complete. Rejects when no complete response arrives (reset, close or timeout), with what did.
 */
export function rawExchange(port: number, plan: RawPlan, connected?: net.Socket): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connected ?? net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (error: Error | null, res?: WireResponse) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(res!);
    };
    const complete = (): WireResponse | null => {
      const head = parseHead(received);
      if (!head) return null;
      const length = head.headers['content-length'];
      if (length === undefined) return null; // every response of the emulator has a length
      const body = received.subarray(head.bodyAt);
      if (body.length < Number(length)) return null;
      return { status: head.status, headers: head.headers, text: body.subarray(0, Number(length)).toString('utf8'), elapsedMs: Date.now() - started };
    };
    const timer = setTimeout(
      () => finish(new Error(`no complete response within ${plan.timeoutMs ?? 30_000} ms; got ${JSON.stringify(received.toString('latin1').slice(0, 300))}`)),
      plan.timeoutMs ?? 30_000,
    );
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      try {
        const res = complete();
        if (res) finish(null, res);
      } catch (error) {
        finish(error as Error);
      }
    });
    const ended = (why: string) => () => {
      try {
        const res = complete();
        if (res) return finish(null, res);
      } catch (error) {
        return finish(error as Error);
      }
      finish(new Error(`${why} before a complete response; got ${JSON.stringify(received.toString('latin1').slice(0, 300))}`));
    };
    socket.on('error', (error) => ended(`connection error ${error.message}`)());
    socket.on('close', ended('connection closed'));
    const start = () => {
      socket.write(plan.head, 'latin1');
      if (plan.body !== undefined) socket.write(plan.body);
      if (plan.stream) void pump(plan.stream);
      if (plan.trickle) trickle(plan.trickle);
    };
    if (connected && !connected.connecting) start();
    else socket.once('connect', start);

    function trickle({ bytes, everyMs }: { bytes: string; everyMs: number }): void {
      let at = 0;
      const tick = setInterval(() => {
        if (done || received.length > 0 || !socket.writable || at >= bytes.length) return clearInterval(tick);
        socket.write(bytes[at++]!, 'latin1');
      }, everyMs);
      socket.once('close', () => clearInterval(tick));
    }

    async function pump({ total, chunked, tail }: { total: number; chunked: boolean; tail: string }): Promise<void> {
      const piece = Buffer.alloc(64 * 1024, 'p');
      let left = total;
      while (left > 0 && received.length === 0 && !done && socket.writable) {
        const part = left >= piece.length ? piece : piece.subarray(0, left);
        left -= part.length;
        const data = chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part;
        if (!socket.write(data)) await new Promise<void>((ok) => socket.once('drain', ok).once('close', ok));
      }
      // Only reached when the server read it all without answering: end the body properly.
      if (left === 0 && received.length === 0 && !done && socket.writable) {
        socket.write(chunked ? `${Buffer.byteLength(tail).toString(16)}\r\n${tail}\r\n0\r\n\r\n` : tail);
      }
    }
  });
}

/** A TCP connection opened ahead of time, so that a later burst of writes needs no handshake. */
export function rawConnect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Opens `count` keep-alive connections on `agent` with cheap GETs, so the next burst reuses them. */
export async function warmAgent(port: number, agent: http.Agent, count: number): Promise<void> {
  const res = await Promise.all(Array.from({ length: count }, () => httpRequest(port, agent, { method: 'GET', path: '/__emulator/health' })));
  const bad = res.filter((r) => r.status !== 200);
  if (bad.length) throw new Error(`warming the connections: ${bad.length} answers were not 200, e.g. ${describeResponse(bad[0]!)}`);
}

/** Every complete response in `buf`, in order (each must carry a Content-Length, as the emulator's do). */
export function parseResponses(buf: Buffer): WireResponse[] {
  const out: WireResponse[] = [];
  let rest = buf;
  for (;;) {
    const head = parseHead(rest);
    if (!head || head.headers['content-length'] === undefined) return out;
    const length = Number(head.headers['content-length']);
    if (rest.length < head.bodyAt + length) return out;
    out.push({ status: head.status, headers: head.headers, text: rest.subarray(head.bodyAt, head.bodyAt + length).toString('utf8'), elapsedMs: 0 });
    rest = rest.subarray(head.bodyAt + length);
  }
}

/**
 * Writes `bytes` on a fresh connection (several pipelined requests, say) and collects everything the
 * server sends until it closes the connection or `idleMs` pass without a byte; returns the complete
 * responses in order.
 */
export function rawConversation(port: number, bytes: string, idleMs = 1500): Promise<WireResponse[]> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes, 'latin1'));
    const chunks: Buffer[] = [];
    let timer = setTimeout(() => socket.destroy(), idleMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      clearTimeout(timer);
      timer = setTimeout(() => socket.destroy(), idleMs);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponses(Buffer.concat(chunks)));
    });
  });
}

export interface ContractError {
  code: string;
  message: string;
  param?: string;
}

/** Throws unless `text` is exactly the contract's error body `{"error":{"code","message"[,"param"]}}`. */
export function contractError(text: string): ContractError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`error body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error(`error body is not an object: ${text.slice(0, 200)}`);
  const top = Object.keys(body);
  if (top.length !== 1 || top[0] !== 'error') throw new Error(`error body has keys ${JSON.stringify(top)}, not just "error"`);
  const error = (body as { error: unknown }).error;
  if (error === null || typeof error !== 'object' || Array.isArray(error)) throw new Error(`"error" is not an object: ${text.slice(0, 200)}`);
  const e = error as Record<string, unknown>;
  const extra = Object.keys(e).filter((k) => !['code', 'message', 'param'].includes(k));
  if (extra.length) throw new Error(`"error" has unexpected keys ${JSON.stringify(extra)}`);
  if (typeof e.code !== 'string' || !/^[a-z][a-z_]*$/.test(e.code)) throw new Error(`error.code ${JSON.stringify(e.code)} is not a code`);
  if (typeof e.message !== 'string' || e.message.length === 0) throw new Error('error.message is not a non-empty string');
  if ('param' in e && (typeof e.param !== 'string' || e.param === '')) throw new Error(`error.param ${JSON.stringify(e.param)} is not a field name`);
  if (/\n\s+at /.test(text)) throw new Error('error body contains a stack trace');
  return e as unknown as ContractError;
}

/** A short description of a response for failure messages. */
export const describeResponse = (res: WireResponse): string => `${res.status} ${res.text.slice(0, 300)}`;
