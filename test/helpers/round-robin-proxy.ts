import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small reverse proxy that sends each request to the next of its upstreams in turn: the load
 * balancer in front of several `svc dev` replicas (CONTRACT §12, docs/shared-sandbox.md), for the
 * cluster tests. What a real balancer does and the tests need: bodies streamed both ways (a server-
 * sent event stream stays open and flows through), the client's `Host` kept (the emulator's host
 * check sees the balancer's name, its `--public-url`), the client's address appended to
 * `X-Forwarded-For`, and `502` in the contract's error shape when the chosen upstream does not answer.
 * No retry on another upstream: a test must see what a replica's death costs a client.
 */
export interface RoundRobinProxy {
  /** `http://<host>:<port>`, what clients and `--public-url` use. */
  readonly url: string;
  readonly port: number;
  /** The base URLs it takes turns over; changeable while it runs (push one after the proxy's own URL is known). */
  readonly upstreams: string[];
  /** Requests sent to each upstream so far, by its index in `upstreams`. */
  readonly hits: number[];
  stop(): Promise<void>;
}

// Per-connection headers (RFC 9110 §7.6.1): a proxy does not forward them.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * `host`: where the proxy listens. `localAddress`: the address it connects to the upstreams from, as
 * a pod's sidecar does (Istio's inbound proxy connects to the app from 127.0.0.6).
 */
export async function startRoundRobinProxy(
  upstreams: string[] = [],
  { host = '127.0.0.1', localAddress }: { host?: string; localAddress?: string } = {},
): Promise<RoundRobinProxy> {
  const list = [...upstreams];
  const hits: number[] = [];
  let turn = 0;
  // Keep-alive toward the replicas, as balancers pool their upstream connections.
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    if (list.length === 0) return fail(res, 'no upstream configured');
    const index = turn++ % list.length;
    hits[index] = (hits[index] ?? 0) + 1;
    const target = new URL(req.url ?? '/', list[index]);
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    const client = req.socket.remoteAddress ?? '';
    headers['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${client}` : client;
    headers['x-forwarded-proto'] = 'http';
    const upstream = http.request(target, { method: req.method, headers, agent, ...(localAddress ? { localAddress } : {}) }, (answer) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
      res.writeHead(answer.statusCode ?? 502, out);
      // Headers now, not with the first chunk: an SSE stream's `ready` may be a while coming.
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => (res.headersSent ? res.destroy() : fail(res, `upstream ${list[index]} did not answer: ${error.message}`)));
    // The client went away (an SSE reader closed): so does the upstream request.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    upstreams: list,
    hits,
    stop: async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function fail(res: http.ServerResponse, message: string): void {
  res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'bad_gateway', message } }));
}
