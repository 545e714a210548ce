import type { Style } from '../output/style.js';
import type { JournalEntry, JournalPrincipal } from '../../contract/testing-types.js';
import { esc } from '../output/escape.js';
import { clockTime } from './time-of-day.js';

/** What a request line shows of a journal entry (a whole `JournalEntry` is one). */
export type RequestLineFields = Pick<
  JournalEntry,
  'id' | 'at' | 'method' | 'path' | 'query' | 'status' | 'durationMs' | 'replayed' | 'fault' | 'responseBody'
> & {
  principal: Pick<JournalPrincipal, 'kind' | 'environment'> | null;
};

/**
 * One journal entry as `svc logs tail` prints it:
 * `14:03:09  POST /v1/invoices 201 3 ms  merchant test  req_…  (fault …)`, then the error's code and
 * message for a refusal, so a failing request says why on its own line. The time of day (local, on the
 * emulator's clock) as `svc webhook deliveries tail` and `svc dev` print theirs; `svc logs get` adds
 * the whole timestamp.
 */
export function requestLine(c: Style, e: RequestLineFields): string {
  const status = e.status === null ? c.red('dropped') : e.status >= 400 ? c.red(String(e.status)) : c.green(String(e.status));
  const who = e.principal ? `${e.principal.kind} ${e.principal.environment}` : 'no key';
  const path = esc(e.query ? `${e.path}?${e.query}` : e.path);
  const extra = [e.replayed ? 'replayed' : '', e.fault ? `fault ${e.fault}` : ''].filter(Boolean).join(', ');
  let line = `${c.dim(esc(clockTime(e.at)))}  ${e.method} ${path} ${status} ${Math.round(e.durationMs)} ms  ${c.dim(`${who}  ${e.id}`)}${extra ? c.yellow(`  (${extra})`) : ''}`;
  const error = e.status !== null && e.status >= 400 ? errorOf(e.responseBody) : null;
  if (error) line += `\n    ${c.red(esc(error))}`;
  return line;
}

/**
 * One entry as `svc logs get` prints it: the `svc logs tail` line, who sent it, then both bodies,
 * pretty-printed when they are JSON (escaped: they are the client's bytes, CONTRACT §8).
 */
export function requestDetail(c: Style, e: JournalEntry): string {
  const facts = [
    `at ${esc(e.at)}`,
    e.key ? `key ${e.key}` : '',
    e.idempotencyKey ? `Idempotency-Key ${esc(e.idempotencyKey)}` : '',
    e.fromDashboard ? 'sent by the dashboard' : '',
    e.truncated ? 'bodies cut at 16 KiB' : '',
  ].filter(Boolean);
  return [
    requestLine(c, e),
    ...(facts.length ? [c.dim(facts.join('  ·  '))] : []),
    '',
    c.bold('Request body'),
    bodyText(e.requestBody),
    '',
    c.bold('Response body'),
    bodyText(e.responseBody),
  ].join('\n');
}

function bodyText(body: string | null): string {
  if (body === null || body === '') return '(none)';
  try {
    return esc(JSON.stringify(JSON.parse(body), null, 2), { multiline: true });
  } catch {
    return esc(body, { multiline: true });
  }
}

function errorOf(body: string | null): string | null {
  if (!body) return null;
  try {
    const parsed: unknown = JSON.parse(body);
    const error = parsed !== null && typeof parsed === 'object' && 'error' in parsed ? parsed.error : null;
    if (error !== null && typeof error === 'object' && 'code' in error && 'message' in error) return `${String(error.code)}: ${String(error.message)}`;
  } catch {
    // Not JSON: nothing to add.
  }
  return null;
}
