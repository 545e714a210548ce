import { contractError } from './contract-error.js';
import { ApiRefusedError, ServiceUnreachableError } from './errors.js';
import { controlHeaders, type HttpRequest, type HttpResponse } from './http.js';

/** The part of `fetch` this transport uses: the browser's, Node's, or a test's own. */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<{
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}>;

/**
 * `send` (http.ts) over `fetch`, for where node:http is not: the dashboard, in a browser, loads the
 * same typed client the package exports, and sends through this. Same answers as `send`: the data,
 * or an ApiRefusedError with the contract's error body, or a ServiceUnreachableError when nothing
 * answered; a file download's bytes (`binary`); the control token on control requests (the dashboard
 * behind a load balancer asks its user for one).
 */
export function fetchTransport(fetchFn: FetchLike) {
  return async function sendWithFetch(baseUrl: string, req: HttpRequest): Promise<HttpResponse<unknown>> {
    let url: URL;
    try {
      url = new URL(req.path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    } catch {
      throw new ServiceUnreachableError(baseUrl, 'the base URL is not a valid URL');
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    if (req.key) headers.authorization = `Bearer ${req.key}`;
    Object.assign(headers, controlHeaders(req));
    if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
    Object.assign(headers, req.headers);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Awaited<ReturnType<FetchLike>>;
    let text = '';
    let bytes: Uint8Array | undefined;
    try {
      res = await fetchFn(url.href, {
        method: req.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(req.timeoutMs ?? 30_000),
      });
      if (req.binary && res.status < 400) bytes = new Uint8Array(await res.arrayBuffer());
      else text = await res.text();
    } catch (error) {
      throw new ServiceUnreachableError(baseUrl, error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : String(error));
    }
    const requestId = res.headers.get('request-id');
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = text;
    }
    if (res.status >= 400) {
      throw new ApiRefusedError(
        res.status,
        contractError(data) ?? { code: `http_${res.status}`, message: text.slice(0, 300) || `HTTP ${res.status}` },
        requestId,
      );
    }
    if (bytes) return { status: res.status, data: bytes, requestId, replayed: false };
    return { status: res.status, data, requestId, replayed: res.headers.get('idempotent-replayed') === 'true' };
  };
}
