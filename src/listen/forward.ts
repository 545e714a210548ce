/**
 * One forward to the developer's app: the delivery's raw body byte for byte, its headers plus the
 * `--header` ones, within `--timeout`, redirects never followed, at most 4 KiB of the answer kept.
 * Failures are named exactly as the emulator's own delivery attempts name them (src/webhooks/attempt.ts:
 * `connection_refused: 127.0.0.1:3000`, `http_status: 500 Internal Server Error`, `timeout: …`), so
 * what listen prints and what the deliveries record read the same. Never throws.
 */
import { Agent } from 'undici';
import { classify, readCapped, sinkText, statusFailure, type AttemptErrorKind, type BodySink, type Failure } from '../webhooks/attempt.js';
import { monotonicMs } from '../clock/monotonic.js';

export type ForwardErrorKind = AttemptErrorKind;

export interface ForwardRequest {
  url: string;
  /** Usually POST; the relay passes on whatever method arrived. */
  method: string;
  /** The exact bytes received. */
  body: string | Uint8Array;
  /** An object, or a flat `[name, value, name, value…]` list (keeps case and repeats). */
  headers: Record<string, string> | string[];
  timeoutMs: number;
}

export interface ForwardResult {
  ok: boolean;
  status: number | null;
  /** At most 4 KiB of the answer, decoded as UTF-8; null when no answer arrived. */
  body: string | null;
  /** The answer's Content-Type, for the relay to pass on. */
  contentType: string | null;
  /** `<kind>: <detail>` when not ok. */
  error: string | null;
  errorKind: ForwardErrorKind | null;
  durationMs: number;
}

export interface Forwarder {
  forward(req: ForwardRequest): Promise<ForwardResult>;
  close(): Promise<void>;
}

/**
 * A forwarder over one keep-alive undici agent (the app is one origin, hit again and again). Its
 * own per-phase timers are off: one timer per forward covers connect, headers and body, so an app
 * that trickles its answer forever times out too.
 */
export function createForwarder(): Forwarder {
  const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, connections: 16 });

  async function forward(req: ForwardRequest): Promise<ForwardResult> {
    const started = monotonicMs();
    let status: number | null = null;
    let contentType: string | null = null;
    const sink: BodySink = { chunks: [], size: 0 };
    const result = (failure: Failure | null): ForwardResult => ({
      ok: failure === null,
      status,
      body: status === null ? null : sinkText(sink),
      contentType,
      error: failure === null ? null : `${failure[0]}: ${failure[1]}`,
      errorKind: failure === null ? null : failure[0],
      durationMs: Math.round(monotonicMs() - started),
    });
    const url = new URL(req.url);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), req.timeoutMs);
    try {
      const res = await agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: controller.signal,
      });
      status = res.statusCode;
      const type = res.headers['content-type'];
      contentType = (Array.isArray(type) ? type[0] : type) ?? null;
      await readCapped(res.body, sink);
      return result(status >= 200 && status < 300 ? null : statusFailure(status, res.statusText, res.headers, url));
    } catch (err) {
      if (controller.signal.aborted) {
        return result([
          'timeout',
          status === null ? `no response within ${req.timeoutMs} ms` : `response body not complete within ${req.timeoutMs} ms (status ${status})`,
        ]);
      }
      return result(classify(err, url, status !== null));
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    forward,
    async close() {
      await agent.destroy();
    },
  };
}
