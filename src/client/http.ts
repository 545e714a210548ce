import { request as undiciRequest } from 'undici';
import { ApiRefusedError, ServiceUnreachableError } from './errors.js';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  key?: string | undefined;
  body?: unknown;
  idempotencyKey?: string | undefined;
  timeoutMs?: number;
}

export interface HttpResponse<T> {
  status: number;
  data: T;
  requestId: string | null;
  replayed: boolean;
}

/**
 * One request to the service, emulator or remote alike (undici). A 4xx/5xx becomes an
 * ApiRefusedError carrying the contract's error body; no answer at all, a ServiceUnreachableError.
 */
export async function send<T>(baseUrl: string, req: HttpRequest): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (req.key) headers.authorization = `Bearer ${req.key}`;
  if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
  let body: string | undefined;
  if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  }
  let res;
  try {
    res = await undiciRequest(new URL(req.path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`), {
      method: req.method,
      headers,
      body,
      headersTimeout: req.timeoutMs ?? 30_000,
      bodyTimeout: req.timeoutMs ?? 30_000,
    });
  } catch (error) {
    throw new ServiceUnreachableError(baseUrl, describeNetworkError(error));
  }
  const text = await res.body.text();
  const requestId = header(res.headers['request-id']);
  let data: unknown = undefined;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = text;
  }
  if (res.statusCode >= 400) {
    const error = (data as { error?: { code: string; message: string; param?: string } } | undefined)?.error;
    throw new ApiRefusedError(res.statusCode, error ?? { code: `http_${res.statusCode}`, message: text.slice(0, 300) || `HTTP ${res.statusCode}` }, requestId);
  }
  return { status: res.statusCode, data: data as T, requestId, replayed: header(res.headers['idempotent-replayed']) === 'true' };
}

function header(value: string | string[] | undefined): string | null {
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

function describeNetworkError(error: unknown): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (is the service running? `svc dev` starts the local emulator)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'timed out';
  if (code === 'ERR_INVALID_URL' || e.message?.includes('Invalid URL')) return 'the base URL is not a valid URL';
  return e.cause?.message ?? e.message ?? String(error);
}
