import type { ChalkInstance } from 'chalk';
import type { EmulatorEvent } from '../../server/events.js';
import { statusColour } from './style.js';

/** One line per emulator event for people: `POST /v1/invoices 201 3 ms`. */
export function humanDevLine(event: EmulatorEvent, c: ChalkInstance): string | null {
  switch (event.type) {
    case 'request': {
      const ms = event.durationMs < 1 ? '<1' : Math.round(event.durationMs).toString();
      return `${c.dim(time())} ${event.method} ${event.path} ${statusColour(c, event.status)(String(event.status))} ${ms} ms`;
    }
    case 'warning':
      return `${c.dim(time())} ${c.yellow('warning')} ${event.message}`;
    case 'error':
      return `${c.dim(time())} ${c.red('error')} ${event.message}${event.requestId ? c.dim(` (${event.requestId})`) : ''}`;
    default:
      return null;
  }
}

function time(): string {
  return new Date().toTimeString().slice(0, 8);
}
