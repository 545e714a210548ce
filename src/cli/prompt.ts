import { UsageError } from '../errors.js';
import type { Context } from './context.js';

export interface Ask {
  /** The flag that provides the value, named in the usage error. */
  flag: string;
  /** The prompt on a terminal: `Amount (e.g. 25.00):`. */
  message: string;
  /**
   * What the flag gives, for the usage error when it cannot be asked: `a decimal amount such as
   * 25.00` (a phrase of its own: the prompt, punctuated for a terminal, reads badly inside one).
   */
  what: string;
  /** Returns an error message, or true. */
  validate?: (value: string) => true | string;
  secret?: boolean;
  default?: string;
}

/**
 * A required value: the flag's if given; otherwise asked on a terminal (@inquirer/prompts), and a
 * usage error naming the flag when not on a terminal or with --json (scripts never hang on a prompt).
 */
export async function required(ctx: Context, value: string | undefined, ask: Ask): Promise<string> {
  if (value !== undefined && value !== '') {
    const ok = ask.validate?.(value) ?? true;
    if (ok !== true) throw new UsageError(`${ask.flag}: ${ok}`, ask.flag);
    return value;
  }
  if (!ctx.interactive) throw new UsageError(`missing required option ${ask.flag} (${ask.what})`, ask.flag);
  const prompts = await import('@inquirer/prompts');
  const options = {
    message: ask.message,
    validate: (v: string) => (v === '' ? 'required' : (ask.validate?.(v) ?? true)),
    ...(ask.default !== undefined ? { default: ask.default } : {}),
  };
  return ask.secret ? prompts.password({ ...options, mask: '*' }) : prompts.input(options);
}

/** A yes/no question; `fallback` when prompts are not allowed. */
export async function confirm(ctx: Context, message: string, fallback: boolean): Promise<boolean> {
  if (!ctx.interactive) return fallback;
  const prompts = await import('@inquirer/prompts');
  return prompts.confirm({ message, default: fallback });
}
