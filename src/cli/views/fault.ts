import type { Style } from '../output/style.js';
import type { Fault } from '../../contract/testing-types.js';
import { table } from '../output/human.js';

function what(f: Fault): string {
  const a = f.action;
  if ('status' in a) return `${a.status} ${a.code ?? ''}${a.retryAfter !== undefined ? ` (Retry-After ${a.retryAfter})` : ''}`.trim();
  if ('delayMs' in a) return `delay ${a.delayMs} ms`;
  return 'drop the connection';
}

function where(f: Fault): string {
  const m = f.match;
  return [m.method ?? 'any method', m.path ?? 'every /v1 route', m.environment ? `(${m.environment})` : ''].filter(Boolean).join(' ');
}

const times = (f: Fault) => (f.times === null ? 'until cleared' : `${f.times} more`);

/** `<id>: POST /v1/invoices → 503 service_unavailable, before, 1 more` */
export function faultLine(c: Style, f: Fault): string {
  return `${c.bold(f.id)}: ${where(f)} → ${what(f)}, ${f.when}, ${times(f)}`;
}

export function faultTable(c: Style, faults: Fault[]): string {
  return table(
    c,
    [
      { header: 'id', value: (f: Fault) => f.id },
      { header: 'match', value: where },
      { header: 'action', value: what },
      { header: 'when', value: (f) => f.when },
      { header: 'left', value: times },
      { header: 'fired', value: (f) => f.fired },
    ],
    faults,
    'no faults in force',
  );
}
