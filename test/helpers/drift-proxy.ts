/**
 * A drift proxy: svc behind a small HTTP proxy that changes ONE thing the contract fixes, so that the
 * fidelity checks can be seen failing (test/integration/verify-drift.test.ts). It forwards requests as
 * svc proxy does (src/fidelity/proxy/forward.ts: bodies streamed, so in-flight requests stay in flight),
 * and can change svc's answers (`answer`) or the webhook deliveries svc makes (`delivery`): for those,
 * the webhook URL a client PUTs is swapped for a relay of the proxy's own, and swapped back in answers.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createUpstream } from '../../src/fidelity/proxy/forward.js';

export interface DriftAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Drift {
  /** Changes one of svc's answers to `method path` (return it changed, or as it was). */
  answer?: (request: { method: string; path: string }, answer: DriftAnswer) => DriftAnswer;
  /** Changes a webhook delivery on its way from svc to the client's receiver. */
  delivery?: (delivery: { headers: Record<string, string>; body: string }) => { headers: Record<string, string>; body: string };
}

export interface DriftProxy {
  url: string;
  stop(): Promise<void>;
}

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

export async function startDriftProxy(upstream: string, drift: Drift): Promise<DriftProxy> {
  const forwarder = createUpstream(new URL(upstream), 4 * 1024 * 1024);
  /** relay URL → the receiver URL the client PUT. */
  const relays = new Map<string, string>();

  // The relay svc delivers to: the delivery, changed, to the client's receiver; its answer back.
  const relay = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const target = relays.get(`${relayUrl}${req.url}`);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
    const sent = drift.delivery
      ? drift.delivery({ headers, body: Buffer.concat(chunks).toString('utf8') })
      : { headers, body: Buffer.concat(chunks).toString('utf8') };
    try {
      const answer = await fetch(target ?? 'http://127.0.0.1:1', { method: 'POST', headers: sent.headers, body: sent.body, redirect: 'manual' });
      const text = await answer.text();
      res.writeHead(answer.status, answer.headers.get('location') ? { location: answer.headers.get('location')! } : {}).end(text);
    } catch {
      res.writeHead(502).end();
    }
  });
  const relayUrl = await listen(relay);

  const server = createServer(async (req, res) => {
    try {
      const path = (req.url ?? '/').split('?')[0]!;
      let from: IncomingMessage = req;
      if (drift.delivery && req.method === 'PUT' && path === '/v1/partner/webhook') from = await withRelayUrl(req);
      const { answer, failure } = await forwarder.forward(from, req.url ?? '/');
      if (!answer) throw new Error(failure ?? 'no answer');
      let body = answer.body.toString('utf8');
      for (const [relayed, original] of relays) body = body.replaceAll(relayed, original);
      const changed = drift.answer
        ? drift.answer({ method: req.method ?? 'GET', path }, { status: answer.status, headers: { ...answer.headers }, body })
        : { status: answer.status, headers: answer.headers, body };
      const headers = { ...changed.headers };
      for (const name of ['content-length', 'connection', 'keep-alive', 'transfer-encoding']) delete headers[name];
      res
        .writeHead(changed.status, { ...headers, 'content-length': String(Buffer.byteLength(changed.body)), ...(req.complete ? {} : { connection: 'close' }) })
        .end(changed.body);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
    }
  });

  /** The PUT with its `url` swapped for a relay URL of this proxy. */
  async function withRelayUrl(req: IncomingMessage): Promise<IncomingMessage> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let text = Buffer.concat(chunks).toString('utf8');
    try {
      const body = JSON.parse(text);
      // Only URLs svc delivers to: a URL it must refuse (ftp://) goes as it came.
      if (typeof body.url === 'string' && /^https?:\/\//.test(body.url)) {
        // A token of fixed length: no relay URL is the start of another's.
        const relayed = [...relays].find(([, original]) => original === body.url)?.[0] ?? `${relayUrl}/relay-${randomBytes(8).toString('hex')}`;
        relays.set(relayed, body.url);
        text = JSON.stringify({ ...body, url: relayed });
      }
    } catch {
      // Not JSON: forwarded as it came.
    }
    const copy = Readable.from([Buffer.from(text)]) as unknown as IncomingMessage;
    return Object.assign(copy, { method: req.method, headers: { ...req.headers, 'content-length': String(Buffer.byteLength(text)) } });
  }

  const url = await listen(server);
  return {
    url,
    stop: async () => {
      for (const s of [server, relay]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
      await forwarder.close();
    },
  };
}
