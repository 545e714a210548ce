import type { Style } from './style.js';
import type { EmulatorEvent } from '../../server/events.js';
import { esc } from './escape.js';
import { statusColour } from './style.js';
import { statusColour as invoiceStatus } from './human.js';

/**
 * One line per emulator event for people: `POST /v1/invoices 201 3 ms`. Paths, warnings (which name
 * the unknown fields a client sent), event fields and receivers' errors are escaped (CONTRACT §8).
 */
export function humanDevLine(event: EmulatorEvent, c: Style): string | null {
  switch (event.type) {
    case 'request': {
      const ms = event.durationMs < 1 ? '<1' : Math.round(event.durationMs).toString();
      return `${c.dim(time())} ${esc(event.method)} ${esc(event.path)} ${statusColour(c, event.status)(String(event.status))} ${ms} ms`;
    }
    case 'warning':
      return `${c.dim(time())} ${c.yellow('warning')} ${esc(event.message)}`;
    case 'error':
      return `${c.dim(time())} ${c.red('error')} ${esc(event.message)}${event.requestId ? c.dim(` (${esc(event.requestId)})`) : ''}`;
    case 'delivery.sent':
      return `${c.dim(time())} ${c.cyan('-->')} ${named(event)}${event.target === 'listener' ? ' to the listener' : ''}${event.trigger === 'manual' ? c.dim(' (resend)') : ''}`;
    case 'delivery.result':
      return `${c.dim(time())} ${resultLine(event, c)}`;
    case 'chain.transfer':
      return `${c.dim(time())} ${c.magenta('chain')} ${event.networkId} ${esc(event.txHash)} ${esc(event.amount)} ${esc(event.token)} to invoice ${esc(event.invoiceId)}: ${
        event.credited ? invoiceStatus(c, event.status ?? '') : c.yellow(`not credited (${esc(event.reason ?? '')})`)
      }`;
    case 'chain.confirmed':
      return `${c.dim(time())} ${c.magenta('chain')} ${event.networkId} ${esc(event.txHash)} confirmed: invoice ${esc(event.invoiceId)} ${invoiceStatus(c, event.status)}`;
    default:
      return null;
  }
}

type Result = Extract<EmulatorEvent, { type: 'delivery.result' }>;

const named = (e: { eventType: string; eventId: string }) => `${esc(e.eventType)} [${esc(e.eventId)}]`;

/**
 * `<-- [200] invoice.paid [<eventId>] POST http://localhost:3000/hooks (12 ms)`: the event is named
 * because attempts run concurrently and their results interleave; failures in red with the reason
 * and what next.
 */
export function resultLine(event: Result, c: Style): string {
  const status = event.responseStatus === null ? 'ERR' : String(event.responseStatus);
  const line = `<-- [${status}] ${named(event)} POST ${esc(event.url)} (${Math.round(event.durationMs)} ms)`;
  if (event.ok) return `${c.green('<--')}${line.slice(3)}`;
  const next =
    event.status === 'retrying' && event.nextAttemptAt
      ? `next attempt ${event.nextAttemptAt}`
      : event.status === 'failed'
        ? `gave up after ${event.attempt} attempts`
        : '';
  return c.red(`${line} ${esc(event.error ?? '')}${next ? ` · ${next}` : ''}`);
}

function time(): string {
  return new Date().toTimeString().slice(0, 8);
}
