/**
 * What `svc webhook listen` accepts on the command line, checked before anything runs: the
 * `--forward-to` target, `--events`, `--header` and `--timeout`. Every mistake is a UsageError
 * naming its flag (exit 2).
 */
import { didYouMean } from '../domain/suggest.js';
import { UsageError } from '../errors.js';
import { INVOICE_EVENT_TYPES } from '../webhooks/envelope.js';

const FLAG = '--forward-to';
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Set by the delivery itself (CONTRACT §5); `--header` may not replace them. */
const RESERVED = new Set(['content-type', 'content-length', 'host', 'user-agent', 'x-service-signature', 'transfer-encoding', 'connection']);

/**
 * `3000` → `http://localhost:3000/` (`3000/hooks` → `http://localhost:3000/hooks`); `localhost:3000/hooks` → `http://localhost:3000/hooks`;
 * `http(s)://…` is kept (normalised by the URL parser, so `http://h:1` gains its `/`).
 */
export function parseForwardTo(value: string | undefined): string {
  const given = value?.trim() ?? '';
  if (given === '') throw new UsageError(`missing required option ${FLAG} (where to forward: 3000, localhost:3000/hooks, or a full URL)`, FLAG);
  const invalid = (why: string) =>
    new UsageError(`${FLAG} ${JSON.stringify(given)} ${why}; use a port (3000), host:port/path (localhost:3000/hooks), or a full http(s) URL`, FLAG);
  // `3000` and `3000/hooks`: a port on localhost (the URL parser would read 3000 as an IPv4 address).
  const portOnly = /^(\d+)(\/.*)?$/.exec(given);
  if (portOnly) {
    const port = Number(portOnly[1]);
    if (port < 1 || port > 65535) throw invalid('is not a port between 1 and 65535');
    return new URL(portOnly[2] ?? '/', `http://localhost:${port}`).href;
  }
  if (/^:\d+(\/|$)/.test(given)) return parseForwardTo(`localhost${given}`);
  const withScheme = SCHEME.test(given) ? given : `http://${given}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw invalid('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`uses ${url.protocol.slice(0, -1)}, not http or https`);
  if (!url.hostname) throw invalid('has no host');
  if (url.username || url.password) throw invalid('must not carry credentials');
  return url.href;
}

/** `--events a,b`: each a known event type; null when not given (every event). */
export function parseEvents(value: unknown): string[] | null {
  if (value === undefined || value === null || value === '') return null;
  const types = [
    ...new Set(
      String(value)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (!types.length) throw new UsageError('--events needs at least one event type, e.g. invoice.paid,invoice.expired', '--events');
  const known: readonly string[] = INVOICE_EVENT_TYPES;
  const unknown = types.filter((t) => !known.includes(t));
  if (unknown.length) {
    const hint = unknown.length === 1 ? didYouMean(unknown[0]!, known) : '';
    throw new UsageError(`--events: unknown event type ${unknown.join(', ')}; known: ${known.join(', ')}.${hint}`, '--events');
  }
  return types;
}

/** `--header 'Name: value'` lines to an object; names are HTTP tokens, the delivery's own are refused. */
export function parseHeaders(lines: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  // commander gives a repeatable option as an array; anything else is read as one line.
  const list: unknown[] = Array.isArray(lines) ? lines : lines === undefined ? [] : [lines];
  for (const line of list.map(String)) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!HEADER_NAME.test(name)) throw new UsageError(`--header must look like 'Name: value', not ${JSON.stringify(line)}`, '--header');
    if (RESERVED.has(name.toLowerCase())) throw new UsageError(`--header cannot set ${name}: the delivery's own value is forwarded as is`, '--header');
    const value = line.slice(colon + 1).trim();
    if (/[\r\n]/.test(value)) throw new UsageError(`--header ${name}: the value must not contain a line break`, '--header');
    headers[name] = value;
  }
  return headers;
}

/** `--timeout` in seconds (default 30); the emulator waits for a listener's report at most 300 s. */
export function parseTimeout(value: unknown): number {
  if (value === undefined) return 30;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 300)
    throw new UsageError(`--timeout must be a whole number of seconds from 1 to 300, not ${String(value)}`, '--timeout');
  return n;
}
