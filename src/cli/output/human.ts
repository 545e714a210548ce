import type { Style } from './style.js';
import { esc } from './escape.js';

/**
 * A value the caller has already made safe and styled (its data parts passed through `esc`), which
 * keyValue prints as is. Anything else keyValue escapes itself (CONTRACT §8), then colours.
 */
export class Styled {
  constructor(readonly text: string) {}
}
export const styled = (text: string): Styled => new Styled(text);

/** `[key, value]`, or `[key, value, colour]`: the colour is applied to the escaped value. */
export type Row = [string, unknown] | [string, unknown, (text: string) => string];

/** Aligned `key  value` lines. Undefined values are left out; null shows as a dash. */
export function keyValue(c: Style, rows: Row[]): string {
  const shown = rows.filter((r) => r[1] !== undefined);
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown
    .map(([k, v, colour]) => {
      const value = v === null ? c.dim('—') : v instanceof Styled ? v.text : colour ? colour(esc(v)) : esc(v);
      return `${c.dim(k.padEnd(width))}  ${value}`;
    })
    .join('\n');
}

export interface Column<Row> {
  header: string;
  value: (row: Row) => unknown;
  /** Colour for the cell's text (after padding is computed on the plain, escaped text). */
  colour?: (text: string, row: Row) => string;
}

/** A plain aligned table with a dim header; an empty list says so. Cells are escaped (CONTRACT §8). */
export function table<Row>(c: Style, columns: Column<Row>[], rows: Row[], empty = 'nothing to show'): string {
  if (!rows.length) return c.dim(`(${empty})`);
  const cells = rows.map((r) => columns.map((col) => text(col.value(r))));
  const widths = columns.map((col, i) => Math.max(col.header.length, ...cells.map((row) => row[i]!.length)));
  const header = columns.map((col, i) => c.dim(col.header.padEnd(widths[i]!))).join('  ');
  const lines = cells.map((row, r) =>
    row
      .map((cell, i) => {
        const padded = i === row.length - 1 ? cell : cell.padEnd(widths[i]!);
        const colour = columns[i]!.colour;
        return colour ? padded.replace(cell, () => colour(cell, rows[r]!)) : padded;
      })
      .join('  ')
      .trimEnd(),
  );
  return [header.trimEnd(), ...lines].join('\n');
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return esc(value);
}

export function statusColour(c: Style, status: string): string {
  const s = esc(status);
  switch (status) {
    case 'PAID':
    case 'ACTIVE':
    case 'succeeded':
      return c.green(s);
    case 'EXPIRED':
    case 'failed':
      return c.red(s);
    case 'PARTIALLY_PAID':
    case 'CONFIRMING':
    case 'retrying':
    case 'PENDING':
      return c.yellow(s);
    default:
      return s;
  }
}

/** A generic rendering for values without their own: objects as key/value, the rest as JSON. */
export function plain(c: Style, data: unknown): string {
  if (data === undefined) return '';
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    return keyValue(
      c,
      Object.entries(data).map(([k, v]): Row => [esc(k), v !== null && typeof v === 'object' ? JSON.stringify(v) : v]),
    );
  }
  return esc(typeof data === 'string' ? data : JSON.stringify(data, null, 2), { multiline: true });
}
