import { headerMap, type ExchangeRequest, type ExchangeResponse, type HeaderMap } from '../contract/exchange.js';
import { parseJson } from '../json.js';
import { CheckFailed } from './types.js';

/** One answer of the deployment, with the exchange as sent and received (for the shape checks and reports). */
export interface Answer {
  status: number;
  headers: HeaderMap;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
  request: ExchangeRequest;
  response: ExchangeResponse;
  /** `POST /v1/invoices → 201`, for messages. */
  label: string;
}

export interface SendOptions {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path, parameters filled in (from the contract's operation: `operationPath`). */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Sent as `Authorization: Bearer <key>`; none when undefined. */
  key?: string | undefined;
  /** Serialised as JSON with `Content-Type: application/json`. */
  body?: unknown;
  /** Sent as is instead of `body` (with `contentType`, default application/json). */
  raw?: string | Uint8Array;
  contentType?: string;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

export type Send = (options: SendOptions) => Promise<Answer>;

/**
 * Plain HTTP to the deployment with fetch (undici): the checks need what a typed client hides
 * (status, headers, the raw body, bodies that are not JSON on purpose). Redirects are never followed.
 */
export function apiCaller(baseUrl: string, timeoutMs: number): Send {
  const base = baseUrl.replace(/\/+$/, '');
  return async (o) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key !== undefined) headers.authorization = `Bearer ${o.key}`;
    if (o.idempotencyKey !== undefined) headers['idempotency-key'] = o.idempotencyKey;
    let body: string | Uint8Array | undefined = o.raw;
    if (body === undefined && o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined) headers['content-type'] ??= o.contentType ?? 'application/json';
    const entries = Object.entries(o.query ?? {}).filter((e): e is [string, string | number] => e[1] !== undefined);
    const query = new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString();
    const url = `${base}${o.path}${query ? `?${query}` : ''}`;
    let res: Response;
    try {
      res = await fetch(url, { method: o.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new CheckFailed(`an answer to ${o.method} ${o.path}`, `${error instanceof Error ? error.message : String(error)}${cause}`);
    }
    const text = await res.text();
    const responseHeaders = headerMap(Object.fromEntries(res.headers));
    const request: ExchangeRequest = {
      method: o.method,
      path: o.path,
      query,
      headers: headerMap(headers),
      body: body === undefined ? null : typeof body === 'string' ? body : Buffer.from(body).toString('utf8'),
    };
    return {
      status: res.status,
      headers: responseHeaders,
      text,
      json: parseJson(text),
      request,
      response: { status: res.status, headers: responseHeaders, body: text },
      label: `${o.method} ${o.path} → ${res.status}`,
    };
  };
}
