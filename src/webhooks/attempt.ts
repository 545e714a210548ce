/**
 * One HTTP delivery attempt (CONTRACT §5): POST the signed envelope, never follow redirects, keep at
 * most 4 KiB of the answer, and turn every outcome, including every failure, into an
 * {@link AttemptResult}. The delivery worker decides about retries; this module never throws.
 */
import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';
import { checkLiteralHost, guardedLookup, plainLookup, type LookupFn } from './ssrf.js';
import { errorProperty, errorString } from '../domain/caught.js';
import { parseWebhookAllow, type WebhookAllow } from '../domain/webhook-allow.js';
import { monotonicMs } from '../clock/monotonic.js';

export type { LookupFn } from './ssrf.js';

/** What to send, where, and under which budget and address policy. */
export interface AttemptRequest {
  url: string;
  /** The exact bytes to send (the signed envelope). */
  body: string;
  /** Complete header set, including Content-Type, X-Service-Signature, User-Agent and custom headers. */
  headers: Record<string, string>;
  /** Total budget in ms: queueing for a connection, connect, headers and body read. */
  timeoutMs: number;
  /**
   * 'public-only' (live) connects only to public addresses, checked on the address actually dialled;
   * 'listed-or-public' (any environment of an emulator listening beyond loopback, CONTRACT §8) also
   * to what the attempter's `allow` lists.
   */
  guard: AttemptGuard;
  /** Abandons the attempt (a reset or restore discarded its state): not sent if not yet, cut if under way. */
  signal?: AbortSignal;
}

/** Which addresses an attempt may connect to (see {@link AttemptRequest.guard}). */
export type AttemptGuard = 'none' | 'public-only' | 'listed-or-public';

/** Why an attempt failed; the prefix of {@link AttemptResult.error}. */
export type AttemptErrorKind =
  | 'http_status'
  | 'redirect'
  | 'timeout'
  | 'connection_refused'
  | 'connection_reset'
  | 'dns_error'
  | 'address_blocked'
  | 'tls_error'
  | 'network_error'
  | 'invalid_url';

/** The outcome of one attempt, in the shape of a delivery's `attempts[]` entry. */
export interface AttemptResult {
  ok: boolean; // true on any 2xx
  responseStatus: number | null; // null when no response (status line) arrived
  /** At most 4096 bytes of the response body, decoded as UTF-8; null when no response arrived. */
  responseBody: string | null;
  error: string | null; // null when ok, otherwise `<kind>: <detail>`
  errorKind: AttemptErrorKind | null;
  durationMs: number; // elapsed, on the monotonic clock (clock/monotonic.ts)
  /** A failure no retry can fix (the listener it was for was removed): the delivery ends `failed`. */
  final?: boolean;
}

/** Options of {@link createAttempter}. */
export interface AttempterOptions {
  /** Name resolution for both modes (tests inject one); default: the system resolver. */
  lookup?: LookupFn;
  /** Connections per origin (default 32), so one slow receiver cannot take every socket. */
  maxConnectionsPerOrigin?: number;
  /** What `guard: 'listed-or-public'` lets through besides public addresses (`--webhook-allow`). */
  allow?: WebhookAllow;
}

/** Sends attempts over long-lived keep-alive agents, one per guard. */
export interface Attempter {
  /** Never rejects: every failure is an {@link AttemptResult}. */
  attempt(req: AttemptRequest): Promise<AttemptResult>;
  /**
   * Closes both agents now: idle sockets are closed and attempts still running end at once as a
   * `network_error` (callers that want them to finish, such as a shutdown grace period, wait first).
   */
  close(): Promise<void>;
}

/** Largest response body kept, in bytes (CONTRACT §5). */
export const MAX_RESPONSE_BODY_BYTES = 4096;

export type Failure = [AttemptErrorKind, string]; // kind, detail

/** Caps user-controlled text (URLs, Location headers) inside error strings. */
const clip = (s: string, max = 300): string => (s.length > max ? `${s.slice(0, max)}…` : s);

/** What has been read of a response body so far; survives a failed read (timeout, reset). */
export type BodySink = { chunks: Buffer[]; size: number };

export const sinkText = (sink: BodySink): string =>
  sink.chunks.length === 1 ? sink.chunks[0]!.toString('utf8') : Buffer.concat(sink.chunks, sink.size).toString('utf8');

/**
 * Reads at most {@link MAX_RESPONSE_BODY_BYTES} of `body` into `sink`, then destroys the stream so a
 * huge (or endless) response is not downloaded. An exactly-full body is destroyed only if more data
 * arrives: a body that ends normally leaves the keep-alive connection reusable.
 */
export function readCapped(body: Readable, sink: BodySink): Promise<void> {
  return new Promise((resolve, reject) => {
    body.on('data', (chunk: Buffer) => {
      const room = MAX_RESPONSE_BODY_BYTES - sink.size;
      if (chunk.length <= room) {
        sink.chunks.push(chunk);
        sink.size += chunk.length;
        return;
      }
      if (room > 0) sink.chunks.push(chunk.subarray(0, room));
      sink.size = MAX_RESPONSE_BODY_BYTES;
      body.removeAllListeners('data');
      body.destroy(); // its abort 'error' reaches `reject` after `resolve`, so it is ignored
      resolve();
    });
    body.once('end', resolve);
    body.once('error', reject);
  });
}

/** Every error in a cause chain (undici wraps) and in an AggregateError (happy-eyeballs connects). */
function* errorChain(err: unknown, depth = 0): Generator<NodeJS.ErrnoException> {
  if (!(err instanceof Error) || depth > 5) return;
  yield err; // an Error is an ErrnoException whose errno fields may be absent
  if (err instanceof AggregateError) for (const inner of err.errors) yield* errorChain(inner, depth + 1);
  yield* errorChain(err.cause, depth + 1);
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA', 'EAI_ADDRFAMILY']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/;

/**
 * Maps a transport error to a failure; `url` fills in what the error itself does not say. Also used by
 * `svc webhook listen`'s forwarder (src/listen/forward.ts), so both name failures the same way.
 */
export function classify(err: unknown, url: URL, gotHeaders: boolean): Failure {
  const chain = [...errorChain(err)];
  const find = (test: (code: string) => boolean) => chain.find((e) => typeof e.code === 'string' && test(e.code));
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');

  const blocked = find((c) => c === 'ESVC_ADDRESS_BLOCKED');
  if (blocked) return ['address_blocked', blocked.message];
  const dns = find((c) => DNS_CODES.has(c));
  if (dns) return ['dns_error', `cannot resolve ${url.hostname}${dns.code === 'EAI_AGAIN' ? ' (temporary DNS failure)' : ''}`];
  const refused = find((c) => c === 'ECONNREFUSED');
  if (refused) {
    const address = errorString(refused, 'address');
    const refusedPort = errorProperty(refused, 'port');
    return ['connection_refused', address ? `${address}:${typeof refusedPort === 'number' ? refusedPort : port}` : `${url.hostname}:${port}`];
  }
  if (find((c) => TIMEOUT_CODES.has(c))) return ['timeout', `${chain[0]?.message ?? 'timed out'}`];
  const tls = find((c) => TLS_CODE.test(c));
  // OpenSSL messages are multi-line dumps; its `reason` ("wrong version number") is the useful part.
  if (tls) return ['tls_error', `${errorString(tls, 'reason') ?? tls.message} (${tls.code})`];
  if (find((c) => RESET_CODES.has(c))) {
    return ['connection_reset', gotHeaders ? 'the connection was reset while reading the response body' : 'the connection was reset'];
  }
  if (find((c) => c === 'UND_ERR_DESTROYED' || c === 'UND_ERR_CLOSED')) return ['network_error', 'the attempter was closed'];
  const first = chain[0];
  return ['network_error', !first ? String(err) : first.code ? `${first.message} (${first.code})` : first.message];
}

/** The failure for a response that arrived: a redirect (never followed) or a non-2xx status. */
export function statusFailure(status: number, statusText: string, headers: Dispatcher.ResponseData['headers'], url: URL): Failure {
  const phrase = statusText || STATUS_CODES[status] || '';
  const line = phrase ? `${status} ${phrase}` : `${status}`;
  if (status < 300 || status >= 400) return ['http_status', line];
  const location = [headers.location].flat()[0];
  if (location === undefined) return ['redirect', `${line} without a Location header (redirects are not followed)`];
  // Relative Locations are shown as the absolute URL they mean; URL.canParse avoids a throw.
  const target = URL.canParse(location, url.href) ? new URL(location, url).href : location;
  return ['redirect', `${status} to ${clip(target)} (redirects are not followed)`];
}

/**
 * Creates an attempter with keep-alive agents: a plain one (`guard: 'none'`), one whose sockets
 * resolve through {@link guardedLookup} (`guard: 'public-only'`), and one whose guard lets the
 * `allow` list through (`guard: 'listed-or-public'`). Separate agents also mean a connection opened
 * under one guard is never reused under a stricter one.
 */
export function createAttempter(options: AttempterOptions = {}): Attempter {
  // undici is loaded for the first attempt, not with the emulator: importing it took ~30% of a cold
  // start, and most runs (a test file, a CI job) deliver nothing, or deliver well after start-up.
  let agents: Promise<Record<AttemptGuard, Agent>> | undefined;
  const allow = options.allow ?? parseWebhookAllow([]);
  let closed = false;
  const agentsFor = () =>
    (agents ??= import('undici').then(({ Agent }) => {
      // Keep-alive is undici's default. Its per-phase timers are off: they would only duplicate the
      // single total-budget timer of each attempt.
      const common: Agent.Options = { connections: options.maxConnectionsPerOrigin ?? 32, headersTimeout: 0, bodyTimeout: 0 };
      return {
        none: new Agent(options.lookup ? { ...common, connect: { lookup: plainLookup(options.lookup) } } : common),
        'public-only': new Agent({ ...common, connect: { lookup: guardedLookup(options.lookup) } }),
        'listed-or-public': new Agent({ ...common, connect: { lookup: guardedLookup(options.lookup, allow) } }),
      };
    }));

  async function attempt(req: AttemptRequest): Promise<AttemptResult> {
    // The first attempt waits for undici before its clock starts: the budget is the receiver's.
    const loaded = closed ? null : await agentsFor();
    const started = monotonicMs();
    const result = (status: number | null, body: string | null, failure: Failure | null): AttemptResult => ({
      ok: failure === null,
      responseStatus: status,
      responseBody: body,
      error: failure === null ? null : `${failure[0]}: ${failure[1]}`,
      errorKind: failure === null ? null : failure[0],
      durationMs: monotonicMs() - started,
    });

    let url: URL;
    try {
      url = new URL(req.url); // not URL.canParse first: that would parse every URL twice
    } catch {
      return result(null, null, ['invalid_url', `not an absolute URL: ${clip(String(req.url))}`]);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return result(null, null, ['invalid_url', `unsupported scheme ${url.protocol.slice(0, -1)} (http or https only)`]);
    }
    if (req.guard !== 'none') {
      // net.connect does not call `lookup` for IP literals, so the guarded agents cannot see them.
      const blocked = checkLiteralHost(url.hostname, req.guard === 'listed-or-public' ? allow : undefined);
      if (blocked) return result(null, null, ['address_blocked', blocked.message]);
    }

    // One timer for the whole attempt: a receiver trickling its body forever must time out too.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), req.timeoutMs);
    const abandon = () => controller.abort();
    req.signal?.addEventListener('abort', abandon, { once: true });
    let status: number | null = null;
    const sink: BodySink = { chunks: [], size: 0 };
    // The body read so far (kept on a timeout or reset mid-body); null while no response arrived.
    const bodyText = (): string | null => (status === null ? null : sinkText(sink));
    try {
      // Closed: as an attempt on a destroyed agent ends (UND_ERR_DESTROYED), without loading undici.
      if (!loaded) return result(null, null, ['network_error', 'the attempter was closed']);
      if (req.signal?.aborted) return result(null, null, ['network_error', 'abandoned: the state it belonged to was discarded']);
      const res = await loaded[req.guard].request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal: controller.signal,
      });
      status = res.statusCode;
      await readCapped(res.body, sink);
      return result(status, bodyText(), status >= 200 && status < 300 ? null : statusFailure(status, res.statusText, res.headers, url));
    } catch (err) {
      if (controller.signal.aborted) {
        const detail = status === null ? `no response within ${req.timeoutMs} ms` : `response body not complete within ${req.timeoutMs} ms (status ${status})`;
        return result(status, bodyText(), ['timeout', detail]);
      }
      return result(status, bodyText(), classify(err, url, status !== null));
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', abandon);
    }
  }

  return {
    attempt,
    async close() {
      closed = true;
      if (!agents) return;
      // destroy, not close: Agent#close() would wait for hung receivers until their timeouts.
      await Promise.all(Object.values(await agents).map((agent) => agent.destroy()));
    },
  };
}
