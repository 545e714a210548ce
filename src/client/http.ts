import type http from 'node:http';
import type https from 'node:https';
import { errorCode, errorMessage } from '../domain/caught.js';
import { contractError } from './contract-error.js';
import { ApiRefusedError, ServiceUnreachableError } from './errors.js';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  key?: string | undefined;
  body?: unknown;
  idempotencyKey?: string | undefined;
  timeoutMs?: number;
  /** An operation of the control plane (`control` in the contract): it carries the control token. */
  control?: boolean;
  /** Sent as `Svc-Control-Token` on a `control` request only (CONTRACT §12); never on the API's. */
  controlToken?: string | undefined;
  /** The answer is a file, not JSON: `data` is its bytes (errors are still the contract's JSON). */
  binary?: boolean;
  /** Sent as they are, after the ones above (the dashboard's `Svc-Client`). */
  headers?: Record<string, string> | undefined;
}

export interface HttpResponse<T> {
  status: number;
  data: T;
  requestId: string | null;
  replayed: boolean;
}

// Keep-alive agents: a fixtures run sends a thousand requests in a row over one connection.
// node:http is taken on the first request (process.getBuiltinModule: no import, no chunk of its
// own), not imported by this module: the typed client's single-file build (dist/client.js) is also
// the dashboard's, in a browser, where it sends with fetch and a static `import 'node:http'` would
// stop the module from loading at all.
let plain: { module: typeof http; agent: http.Agent } | undefined;
// node:https (and TLS) is loaded on the first https request only: most commands talk to the
// local emulator over http, and loading TLS cost ~10 ms of their start-up.
let secure: { module: typeof https; agent: https.Agent } | undefined;
async function transportFor(protocol: string) {
  if (protocol === 'http:') {
    if (!plain) {
      const module = process.getBuiltinModule('node:http');
      plain = { module, agent: new module.Agent({ keepAlive: true, maxSockets: 8 }) };
    }
    return plain;
  }
  if (!secure) {
    const module = (await import('node:https')).default;
    secure = { module, agent: new module.Agent({ keepAlive: true, maxSockets: 8 }) };
  }
  return secure;
}

/**
 * One request to the service, emulator or remote alike. A 4xx/5xx becomes an ApiRefusedError with
 * the contract's error body; no answer at all, a ServiceUnreachableError.
 *
 * node:http rather than undici here: a command is one process and a request or two, and importing
 * undici took ~100 ms on the benchmark machine, more than the rest of `svc invoices create` together
 * (bench #9). The emulator's dispatcher, which lives long and pools connections, uses undici.
 */
export async function send(baseUrl: string, req: HttpRequest): Promise<HttpResponse<unknown>> {
  let url: URL;
  try {
    url = new URL(req.path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  } catch {
    return Promise.reject(new ServiceUnreachableError(baseUrl, 'the base URL is not a valid URL'));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new ServiceUnreachableError(baseUrl, 'the base URL must be http or https'));
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (req.key) headers.authorization = `Bearer ${req.key}`;
  Object.assign(headers, controlHeaders(req));
  if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
  Object.assign(headers, req.headers);
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const timeoutMs = req.timeoutMs ?? 30_000;
  const transport = await transportFor(url.protocol);
  return new Promise((resolve, reject) => {
    const outgoing = transport.module.request(url, { method: req.method, headers, agent: transport.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (error) => reject(new ServiceUnreachableError(baseUrl, describeNetworkError(error))));
      res.on('end', () => {
        clearTimeout(timer);
        const bytes = Buffer.concat(chunks);
        const status = res.statusCode ?? 0;
        const requestId = header(res.headers['request-id']);
        if (req.binary && status < 400) {
          resolve({ status, data: bytes, requestId, replayed: false });
          return;
        }
        const text = bytes.toString('utf8');
        let data: unknown;
        try {
          data = text ? JSON.parse(text) : undefined;
        } catch {
          data = text;
        }
        if (status >= 400) {
          reject(new ApiRefusedError(status, contractError(data) ?? { code: `http_${status}`, message: text.slice(0, 300) || `HTTP ${status}` }, requestId));
        } else {
          resolve({ status, data, requestId, replayed: header(res.headers['idempotent-replayed']) === 'true' });
        }
      });
    });
    const timer = setTimeout(() => outgoing.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })), timeoutMs);
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      reject(new ServiceUnreachableError(baseUrl, describeNetworkError(error)));
    });
    outgoing.end(body);
  });
}

/**
 * A remote control plane (CONTRACT §12: behind a load balancer, a container's published port) wants
 * the control token. Its own header rather than `Authorization`, because some control routes take an
 * API key there; and only on control requests, so that the API (and whatever logs its headers in
 * front of a real deployment) never sees it. Shared with the fetch transport.
 */
export function controlHeaders(req: Pick<HttpRequest, 'control' | 'controlToken'>): Record<string, string> {
  return req.control && req.controlToken ? { 'svc-control-token': req.controlToken } : {};
}

function header(value: string | string[] | undefined): string | null {
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

function describeNetworkError(error: unknown): string {
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return 'connection refused (is the service running? `svc dev` starts the local emulator)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ETIMEDOUT') return 'timed out';
  if (code === 'ECONNRESET') return 'the connection was reset';
  return errorMessage(error);
}
