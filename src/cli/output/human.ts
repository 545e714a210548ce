import type { ChalkInstance } from 'chalk';

/** Aligned `key  value` lines. Undefined values are left out; null shows as a dash. */
export function keyValue(c: ChalkInstance, rows: [string, unknown][]): string {
  const shown = rows.filter(([, v]) => v !== undefined);
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${c.dim(k.padEnd(width))}  ${v === null ? c.dim('—') : String(v)}`).join('\n');
}

export interface Column<Row> {
  header: string;
  value: (row: Row) => unknown;
  /** Colour for the cell's text (after padding is computed on the plain text). */
  colour?: (text: string, row: Row) => string;
}

/** A plain aligned table with a dim header; an empty list says so. */
export function table<Row>(c: ChalkInstance, columns: Column<Row>[], rows: Row[], empty = 'nothing to show'): string {
  if (!rows.length) return c.dim(`(${empty})`);
  const cells = rows.map((r) => columns.map((col) => text(col.value(r))));
  const widths = columns.map((col, i) => Math.max(col.header.length, ...cells.map((row) => row[i]!.length)));
  const header = columns.map((col, i) => c.dim(col.header.padEnd(widths[i]!))).join('  ');
  const lines = cells.map((row, r) =>
    row
      .map((cell, i) => {
        const padded = i === row.length - 1 ? cell : cell.padEnd(widths[i]!);
        const colour = columns[i]!.colour;
        return colour ? padded.replace(cell, colour(cell, rows[r]!)) : padded;
      })
      .join('  ')
      .trimEnd(),
  );
  return [header.trimEnd(), ...lines].join('\n');
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return String(value);
}

export function statusColour(c: ChalkInstance, status: string): string {
  switch (status) {
    case 'PAID':
    case 'ACTIVE':
    case 'succeeded':
      return c.green(status);
    case 'EXPIRED':
    case 'failed':
      return c.red(status);
    case 'PARTIALLY_PAID':
    case 'CONFIRMING':
    case 'retrying':
    case 'PENDING':
      return c.yellow(status);
    default:
      return status;
  }
}

/** A generic rendering for values without their own: objects as key/value, the rest as JSON. */
export function plain(c: ChalkInstance, data: unknown): string {
  if (data === undefined) return '';
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    return keyValue(
      c,
      Object.entries(data).map(([k, v]) => [k, v !== null && typeof v === 'object' ? JSON.stringify(v) : v]),
    );
  }
  return typeof data === 'string' ? data : JSON.stringify(data, null, 2);
}
