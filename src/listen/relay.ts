/**
 * Remote mode's relay: a local HTTP server (127.0.0.1, a free port) that the tunnel, or the service
 * itself with --tunnel none, delivers to. Each POST is forwarded verbatim to the app (same method,
 * raw body, headers, with hop-by-hop ones dropped and `--header` ones added) and the app's status and
 * body go back to the service as the delivery's answer, so the service records the app's real
 * result and retries its failures. An app that cannot be reached becomes a 502 (504 on a timeout)
 * carrying the reason. Events outside `--events` are answered 200 without forwarding.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Emit } from './events.js';
import type { Forwarder } from './forward.js';

export interface RelayOptions {
  forwardTo: string;
  events: string[] | null;
  headers: Record<string, string>;
  timeoutMs: number;
  forwarder: Forwarder;
  emit: Emit;
  /** What in a delivery departs from the contract (one message each); reported, never blocking the forward. */
  inspect?: (body: Buffer, headers: IncomingHttpHeaders) => string[];
}

export interface Relay {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/** Deliveries are small JSON envelopes; anything far larger is not one. */
const MAX_BODY = 1024 * 1024;
/** Meaningful for one connection only (RFC 9110 §7.6.1), or recomputed by the client. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
  'expect',
]);

export async function startRelay(o: RelayOptions): Promise<Relay> {
  const extra = new Set(Object.keys(o.headers).map((h) => h.toLowerCase()));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain; charset=utf-8' });
      res.end(`svc webhook listen: webhook deliveries are POSTed here and forwarded to ${o.forwardTo}\n`);
      return;
    }
    const body = await readBody(req);
    if (body === null) {
      res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('svc webhook listen: body too large for a webhook delivery\n');
      return;
    }
    const envelope = peek(body);
    for (const message of o.inspect?.(body, req.headers) ?? [])
      o.emit({ type: 'violation', eventType: envelope.type ?? 'unknown', eventId: envelope.id ?? '', message });
    if (envelope.type && o.events && !o.events.includes(envelope.type)) {
      o.emit({ type: 'filtered', eventType: envelope.type, eventId: envelope.id ?? '' });
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('not forwarded: filtered out by svc webhook listen --events');
      return;
    }
    const eventType = envelope.type ?? 'unknown';
    const eventId = envelope.id ?? '';
    o.emit({ type: 'event', eventType, eventId });

    // rawHeaders keeps the names' case, order and repeats: the app sees what the service sent.
    const headers: string[] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      if (!HOP_BY_HOP.has(name.toLowerCase()) && !extra.has(name.toLowerCase())) headers.push(name, req.rawHeaders[i + 1]!);
    }
    for (const [name, value] of Object.entries(o.headers)) headers.push(name, value);

    const r = await o.forwarder.forward({ url: o.forwardTo, method: 'POST', body, headers, timeoutMs: o.timeoutMs });
    const common = { eventType, eventId, method: 'POST', url: o.forwardTo, durationMs: r.durationMs };
    if (r.ok) o.emit({ type: 'forwarded', ...common, status: r.status! });
    else o.emit({ type: 'forward_failed', ...common, status: r.status, reason: r.error!, errorKind: r.errorKind! });
    if (r.status !== null) {
      res.writeHead(r.status, r.contentType ? { 'content-type': r.contentType } : {});
      res.end(r.body ?? '');
    } else {
      res.writeHead(r.errorKind === 'timeout' ? 504 : 502, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`svc webhook listen could not forward to ${o.forwardTo}: ${r.error}\n`);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      o.emit({ type: 'warning', message: `relay: ${error.message}` });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end();
    });
  });
  // The app's own timeout (--timeout) bounds each request; Node's defaults would cut in first.
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the relay is not listening on a TCP port');
  const { port } = address;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The envelope's id and type, if the body is one (anything else is still forwarded). */
function peek(body: Buffer): { id?: string; type?: string } {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return {};
    const id: unknown = Reflect.get(parsed, 'id');
    const type: unknown = Reflect.get(parsed, 'type');
    return {
      ...(typeof id === 'string' ? { id } : {}),
      ...(typeof type === 'string' ? { type } : {}),
    };
  } catch {
    return {};
  }
}
