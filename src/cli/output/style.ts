import { styleText } from 'node:util';

/**
 * The styles svc's human output uses. Each wraps its text in ANSI codes through Node's own
 * `util.styleText` (which re-opens an outer style after an inner one ends, as chalk did), or, without
 * colour, returns it as it is. Whether there is colour is the context's decision (context.ts), made
 * once: a TTY, or FORCE_COLOR, unless NO_COLOR or --no-color.
 */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

// validateStream: false, because the context decided already (and for stderr as well as stdout).
const paint = (format: keyof Style) => (text: string) => styleText(format, text, { validateStream: false });
const colour: Style = {
  bold: paint('bold'),
  dim: paint('dim'),
  red: paint('red'),
  green: paint('green'),
  yellow: paint('yellow'),
  cyan: paint('cyan'),
  magenta: paint('magenta'),
};
const same = (text: string) => text;
const plain: Style = { bold: same, dim: same, red: same, green: same, yellow: same, cyan: same, magenta: same };

/** The styles when the context says there is colour, else text unchanged. */
export function styleFor(color: boolean): Style {
  return color ? colour : plain;
}

export function statusColour(c: Style, status: number): (text: string) => string {
  if (status >= 500) return c.red;
  if (status >= 400) return c.yellow;
  if (status >= 300) return c.cyan;
  return c.green;
}
