import type { ChalkInstance } from 'chalk';

let chalk: typeof import('chalk') | undefined;

/**
 * Loads chalk, when colour is on. Without colour (scripts, pipes, --json, NO_COLOR) chalk is never
 * imported: with its colour detection it was a tenth of a command's start-up time.
 */
export async function prepareStyle(color: boolean): Promise<void> {
  if (color && !chalk) chalk = await import('chalk');
}

/** A chalk that colours only when the context says so (TTY, no NO_COLOR, no --no-color). */
export function styleFor(color: boolean): ChalkInstance {
  if (color && chalk) return new chalk.Chalk({ level: 1 });
  return plain;
}

/**
 * Chalk's shape without colour: any chain of style names (`c.bold.red`) is a function returning
 * its text unchanged.
 */
const plain: ChalkInstance = new Proxy(((...text: unknown[]) => text.join(' ')) as ChalkInstance, {
  get: (_target, property) => (property === 'level' ? 0 : plain),
});

export function statusColour(c: ChalkInstance, status: number): (text: string) => string {
  if (status >= 500) return c.red;
  if (status >= 400) return c.yellow;
  if (status >= 300) return c.cyan;
  return c.green;
}
