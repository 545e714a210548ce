import fs from 'node:fs';
import { maskAuthorization, maskBody, maskKeysInText, maskQuery } from '../../server/journal/mask.js';
import type { ExchangeRequest, ExchangeResponse, HeaderMap, Violation } from '../contract/exchange.js';

/** One line of a recording (CONTRACT §13): an exchange with keys and secrets masked as in the journal. */
export interface RecordedExchange {
  /** When the request arrived (ISO 8601, wall clock). */
  at: string;
  request: { method: string; path: string; query: string; headers: HeaderMap; body: string | null };
  response: { status: number; headers: HeaderMap; body: string };
  violations: Violation[];
}

/** Headers whose whole value is a secret: shown as `…`. */
const SECRET_HEADERS = new Set(['cookie', 'set-cookie', 'proxy-authorization', 'svc-control-token']);

/** Headers as a recording keeps them: the key in `Authorization` as its prefix and last four characters, secrets hidden. */
export function maskHeaders(headers: HeaderMap): HeaderMap {
  const out: HeaderMap = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'authorization') {
      const masked = maskAuthorization(value);
      out[name] = masked === null ? '' : `Bearer ${masked}`;
    } else out[name] = SECRET_HEADERS.has(name) ? '…' : maskKeysInText(value);
  }
  return out;
}

/** An exchange as one recording line: masked as the request journal masks (src/server/journal/mask.ts). */
export function recordOf(at: number, request: ExchangeRequest, response: ExchangeResponse, violations: Violation[]): RecordedExchange {
  return {
    at: new Date(at).toISOString(),
    request: {
      method: request.method,
      path: maskKeysInText(request.path),
      query: maskQuery(request.query),
      headers: maskHeaders(request.headers),
      body: request.body === null ? null : maskBody(request.body),
    },
    response: { status: response.status, headers: maskHeaders(response.headers), body: maskBody(response.body) },
    violations,
  };
}

/** An append-only recording file, created (or tightened to) mode 0600: it holds request bodies. */
export interface RecordFile {
  append(line: RecordedExchange): void;
  close(): void;
}

export function openRecordFile(file: string): RecordFile {
  const fd = fs.openSync(file, 'a', 0o600);
  // An existing file keeps its mode on open: a recording is never left readable by others.
  fs.fchmodSync(fd, 0o600);
  return {
    append: (line) => void fs.writeSync(fd, `${JSON.stringify(line)}\n`),
    close: () => fs.closeSync(fd),
  };
}
