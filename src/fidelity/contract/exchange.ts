/**
 * One request and its answer as the fidelity tools see them on the wire (the proxy, a recording,
 * verify's own calls), and what the contract checker says of them.
 */

/** Header names lower-cased; a repeated header's values joined with `, `. */
export type HeaderMap = Record<string, string>;

export interface ExchangeRequest {
  method: string;
  /** The path without the query string (`/v1/invoices/…`). */
  path: string;
  /** The query string without `?`; empty when there is none. */
  query: string;
  headers: HeaderMap;
  /** The body as text (UTF-8); null when there was none. */
  body: string | null;
}

export interface ExchangeResponse {
  status: number;
  headers: HeaderMap;
  /** The body as text (UTF-8), empty when there was none. */
  body: string;
}

/**
 * Where a request or an answer departs from the OpenAPI document: `path` points into it
 * (`/status`, `/headers/request-id`, `/body/addresses/0/networkId`), `message` says how.
 */
export interface Violation {
  where: 'request' | 'response';
  path: string;
  message: string;
}

/** Node's `IncomingHttpHeaders` or undici's (values may be lists) as a HeaderMap. */
export function headerMap(headers: Record<string, string | string[] | undefined>): HeaderMap {
  const out: HeaderMap = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** `violation POST /v1/invoices → 201: /body/checkoutUrl must have required property` (svc proxy's stderr line). */
export function violationLine(method: string, path: string, status: number | null, v: Violation): string {
  return `violation ${method} ${path} → ${status ?? 'no answer'}: ${v.where} ${v.path} ${v.message}`;
}
