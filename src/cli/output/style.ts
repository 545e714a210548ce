import type { ChalkInstance } from 'chalk';
import { Chalk } from 'chalk';

/** A chalk that colours only when the context says so (TTY, no NO_COLOR, no --no-color). */
export function styleFor(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}

export function statusColour(c: ChalkInstance, status: number): (text: string) => string {
  if (status >= 500) return c.red;
  if (status >= 400) return c.yellow;
  if (status >= 300) return c.cyan;
  return c.green;
}
