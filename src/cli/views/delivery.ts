import type { Style } from '../output/style.js';
import type { Delivery, DeliveryDetail } from '../../contract/index.js';
import { esc } from '../output/escape.js';
import { keyValue, statusColour, styled, table } from '../output/human.js';

import type { DeliveryStatus } from '../../contract/enums.js';
import { clockTime } from './time-of-day.js';
export type { DeliveryStatus };
export type DeliveryTarget = 'webhook' | 'listener';

/** A delivery as the API lists it (CONTRACT §5). */
export type DeliveryData = Delivery;
export type AttemptData = DeliveryDetail['attempts'][number];
/** The single view: the exact payload sent, and every attempt. */
export type DeliveryDetailData = DeliveryDetail;

/**
 * One attempt as `svc webhook deliveries tail` prints it: the same fields whether it came from the
 * emulator's stream or from polling a remote deployment. This is the `--json` (NDJSON) shape; add
 * fields, never rename or remove them.
 */
export interface AttemptLine {
  deliveryId: string;
  eventId: string;
  eventType: string;
  invoiceId: string;
  environment: 'test' | 'live';
  url: string;
  /** Where the attempt went: the partner's webhook, or the listener of `svc webhook listen`. */
  target: DeliveryTarget;
  /** 1-based attempt number within the delivery. */
  attempt: number;
  trigger: 'scheduled' | 'manual';
  /** Service time (the emulator's clock, which may have been advanced). */
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  ok: boolean;
  error: string | null;
  /** The delivery's status after this attempt. */
  status: DeliveryStatus;
  /** When the next automatic attempt is due (after the delivery's latest attempt only). */
  nextAttemptAt: string | null;
}

/** HTTP status, or ERR when there was no response (timeout, refused, reset). */
const statusText = (status: number | null) => (status === null ? 'ERR' : String(status));

const oneLine = (s: string, max: number) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function lastResult(d: DeliveryData): string | null {
  if (d.attemptCount === 0) return null;
  return d.lastError ? `${statusText(d.lastResponseStatus)} ${oneLine(d.lastError, 40)}` : statusText(d.lastResponseStatus);
}

export function deliveryTable(c: Style, list: { data: DeliveryData[]; hasMore: boolean }): string {
  const rows = table(
    c,
    [
      { header: 'id', value: (d: DeliveryData) => d.id },
      { header: 'event', value: (d) => d.eventType },
      { header: 'status', value: (d) => d.status, colour: (t) => statusColour(c, t) },
      { header: 'attempts', value: (d) => d.attemptCount },
      { header: 'last', value: (d) => lastResult(d), colour: (t, d) => (d.lastError ? c.red(t) : t) },
      { header: 'next attempt', value: (d) => d.nextAttemptAt },
      { header: 'target', value: (d) => d.target ?? 'webhook' },
      { header: 'url', value: (d) => d.url },
    ],
    list.data,
    'no deliveries',
  );
  return list.hasMore ? `${rows}\n${c.dim(`more: --starting-after ${esc(list.data.at(-1)!.id)}`)}` : rows;
}

/** How much of a response body people see; `--json` has all of it (the service keeps up to 4 KiB). */
const BODY_SHOWN = 200;

function attemptBlock(c: Style, a: AttemptData): string {
  const ok = a.responseStatus !== null && a.responseStatus >= 200 && a.responseStatus < 300;
  const status = ok ? c.green(statusText(a.responseStatus)) : c.red(statusText(a.responseStatus));
  const head = `#${a.number}  ${a.trigger.padEnd(9)}  ${a.startedAt}  ${`${Math.round(a.durationMs)} ms`.padStart(7)}  ${status}`;
  const lines = [head];
  if (a.error) lines.push(`    ${c.dim('error')}     ${c.red(esc(a.error))}`);
  if (a.responseBody) {
    // Whatever the receiver answered: escaped, its line breaks kept (and indented below).
    const body =
      a.responseBody.length > BODY_SHOWN
        ? `${esc(a.responseBody.slice(0, BODY_SHOWN), { multiline: true })}${c.dim(`… (${a.responseBody.length} characters; --json has all)`)}`
        : esc(a.responseBody, { multiline: true });
    lines.push(`    ${c.dim('response')}  ${body.replace(/\n/g, '\n              ')}`);
  }
  return lines.join('\n');
}

/** JSON.stringify leaves DEL, C1 and U+2028 as they are: escaped after formatting. */
function prettyPayload(payload: string): string {
  let text: string;
  try {
    text = JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    text = payload;
  }
  return esc(text, { multiline: true });
}

export function deliveryView(c: Style, d: DeliveryDetailData): string {
  const head = keyValue(c, [
    ['id', d.id],
    ['event', `${d.eventType} [${d.eventId}]`],
    ['status', d.status, (t) => statusColour(c, t)],
    ['target', d.target ?? 'webhook'],
    ['url', d.url],
    ['invoice', d.invoiceId],
    ['merchant', d.merchantId],
    ['environment', d.environment],
    ['attempts', d.attemptCount],
    ['next attempt', d.nextAttemptAt],
    ['created', d.createdAt],
    ['updated', d.updatedAt],
  ]);
  const attempts = d.attempts.length ? d.attempts.map((a) => attemptBlock(c, a)).join('\n') : c.dim('(no attempt yet)');
  return `${head}\n\n${c.bold('Attempts')}\n${attempts}\n\n${c.bold('Payload')}\n${prettyPayload(d.payload)}`;
}

/** After a resend: the new attempt (the record's last), then the delivery's status. */
export function resendView(c: Style, d: DeliveryDetailData): string {
  const a = d.attempts.at(-1);
  const lines = a ? [attemptBlock(c, a)] : [c.dim('(no attempt recorded)')];
  lines.push(
    keyValue(c, [
      ['delivery', styled(`${esc(d.id)} ${statusColour(c, d.status)}`)],
      ['next attempt', d.nextAttemptAt ?? undefined],
    ]),
  );
  return lines.join('\n');
}

/**
 * `12:00:01 <-- [200] invoice.paid [<eventId>] webhook POST <url> (12 ms) succeeded`: which target the
 * attempt went to (the partner's webhook, or `svc webhook listen`'s listener); a failure in red with
 * its error and what happens next. Everything the service or the receiver supplied is escaped.
 */
export function attemptLine(c: Style, a: AttemptLine): string {
  const resend = a.trigger === 'manual' ? ' (resend)' : '';
  const nth = a.attempt > 1 ? ` · attempt ${a.attempt}` : '';
  const line = `<-- [${statusText(a.responseStatus)}] ${esc(a.eventType)} [${esc(a.eventId)}]${resend} ${esc(a.target)} POST ${esc(a.url)} (${Math.round(a.durationMs)} ms) ${esc(a.status)}`;
  const time = c.dim(esc(clockTime(a.startedAt)));
  if (a.ok) return `${time} ${c.green('<--')}${line.slice(3)}${c.dim(nth)}`;
  const next =
    a.status === 'retrying' && a.nextAttemptAt
      ? `next attempt ${esc(clockTime(a.nextAttemptAt, a.startedAt))}`
      : a.status === 'failed' && a.trigger === 'scheduled'
        ? `gave up after ${a.attempt} attempt${a.attempt === 1 ? '' : 's'}`
        : '';
  return `${time} ${c.red([`${line}${a.error ? ` · ${esc(a.error)}` : ''}`, nth.slice(3), next].filter(Boolean).join(' · '))}`;
}
