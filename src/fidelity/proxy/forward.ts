import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { headerMap, type HeaderMap } from '../contract/exchange.js';

/** A body is held while its bytes keep coming, and passed on as it comes once none came for this long. */
const IDLE_MS = 100;
/** ... or once this much is held (a long upload is streamed, not kept whole). */
const HOLD_BYTES = 8 * 1024 * 1024;

/** Meaningful for one connection only (RFC 9110 §7.6.1), or recomputed by the side that sends. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'expect']);

/** What came back from the upstream. */
export interface UpstreamAnswer {
  status: number;
  headers: HeaderMap;
  body: Buffer;
}

/** What became of a forward: the upstream's answer, or why there is none; the body either way. */
export interface Forwarded {
  answer: UpstreamAnswer | null;
  /** Why the upstream could not be reached (connection refused, DNS, reset before an answer). */
  failure: string | null;
  body: SeenBody;
}

/** The request body as it went by: its first `limit` bytes, and whether the checker saw all of it. */
export interface SeenBody {
  bytes: Buffer;
  /** More arrived than was kept, or the answer came before the body had all arrived. */
  truncated: boolean;
}

/**
 * Sends requests to the upstream unchanged: method, path and query, headers (hop-by-hop ones aside;
 * `Host` becomes the upstream's) and the body as it streams in, so that a slow body stays slow (the
 * "request still in flight" of CONTRACT §2 is the upstream's to see). An upstream that answers before
 * the body is all sent (413) is answered with; the rest of the body is read and dropped. The body's
 * first `limit` bytes are kept for the contract checker and the recording. node:http rather than
 * undici: its request still delivers the answer when a late write of the body fails.
 */
export function createUpstream(upstream: URL, limit: number) {
  const secure = upstream.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true, maxSockets: 64 }) : new http.Agent({ keepAlive: true, maxSockets: 64 });
  const base = upstream.pathname.replace(/\/+$/, '');

  function forward(req: IncomingMessage, target: string): Promise<Forwarded> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      let ended = false;
      let answered = false;
      const headers: Record<string, string | string[]> = { host: upstream.host };
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      const out = (secure ? https.request : http.request)(
        {
          protocol: upstream.protocol,
          hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
          port: upstream.port,
          path: base + target,
          method: req.method,
          headers,
          agent,
        },
        (res) => {
          answered = true;
          const body: Buffer[] = [];
          res.on('data', (c: Buffer) => body.push(c));
          res.on('error', (error) => fail(error));
          res.on('end', () =>
            resolve({
              answer: { status: res.statusCode ?? 502, headers: headerMap(res.headers), body: Buffer.concat(body) },
              failure: null,
              body: { bytes: Buffer.concat(chunks), truncated: truncated || !ended },
            }),
          );
        },
      );
      // No answer: said once the client's body is in (the journal and the recording keep it).
      const fail = (error: Error) => {
        const reason = error.cause instanceof Error ? error.cause.message : error.message;
        const done = () => resolve({ answer: null, failure: reason, body: { bytes: Buffer.concat(chunks), truncated } });
        if (ended) done();
        else req.once('end', done).once('close', done);
      };
      // A write that fails after the upstream answered (it refused the body early) is no failure.
      out.on('error', (error) => {
        if (!answered) fail(error);
        req.resume();
      });
      // A body that arrives in one go is sent in one go, as its client sent it: an upstream that
      // refuses it early (413 and Connection: close) then has it all and closes cleanly, where a socket
      // closed on unread data is reset and its answer lost. A body that stalls (a slow client, the
      // in-flight check of CONTRACT §2) is passed on as it comes once it has been idle a moment.
      let held: Buffer[] | null = [];
      let heldBytes = 0;
      const release = () => {
        if (held === null) return;
        const waiting = held;
        held = null;
        if (waiting.length) write(Buffer.concat(waiting));
      };
      const write = (chunk: Buffer) => {
        if (out.destroyed || out.writableEnded) return;
        if (!out.write(chunk)) {
          req.pause();
          out.once('drain', () => req.resume());
        }
      };
      let timer: NodeJS.Timeout | undefined = setTimeout(release, IDLE_MS);
      req.on('data', (chunk: Buffer) => {
        if (held) {
          heldBytes += chunk.length;
          timer?.refresh();
        }
        if (kept < limit) {
          const part = chunk.subarray(0, limit - kept);
          chunks.push(part);
          kept += part.length;
          truncated ||= part.length < chunk.length;
        } else truncated = true;
        if (held) {
          held.push(chunk);
          if (heldBytes >= HOLD_BYTES) release();
        } else write(chunk);
      });
      req.on('end', () => {
        ended = true;
        clearTimeout(timer);
        timer = undefined;
        const last = held ? Buffer.concat(held) : undefined;
        held = null;
        if (!out.destroyed && !out.writableEnded) out.end(last);
      });
      req.on('error', (error) => out.destroy(error));
    });
  }

  return { forward, close: async () => agent.destroy() };
}
