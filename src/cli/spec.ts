import type { ChalkInstance } from 'chalk';
import type { Context } from './context.js';

/**
 * A command, as data: commander is built from these (program.ts), and so are the README's command
 * reference and the shell completions, so the three cannot drift apart.
 */
export interface CommandSpec {
  /** Words after `svc`, e.g. `invoices create`. */
  name: string;
  summary: string;
  /** Longer help, shown by `svc <cmd> --help`. */
  description?: string;
  args?: ArgSpec[];
  options?: OptionSpec[];
  examples?: string[];
  /**
   * The handler watches `ctx.signal` and stops cleanly on it (Ctrl-C, SIGTERM), returning its own
   * exit code. Without it, a signal ends the command at once (exit 130).
   */
  stopsOnSignal?: boolean;
  /** The handler module, imported only when the command runs. */
  load: () => Promise<Handler>;
}

export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
  choices?: readonly string[];
}

export type OptionParser = 'int' | 'positive-int' | 'string';

export interface OptionSpec {
  /** commander syntax: `--amount <amount>`, `--unconfirmed`, `--header <line>`. */
  flags: string;
  description: string;
  parse?: OptionParser;
  /** May be given several times; collected into an array. */
  repeatable?: boolean;
  choices?: readonly string[];
  defaultValue?: string | boolean | number;
}

export interface HandlerInput {
  /** Positional arguments by name. */
  args: Record<string, string | undefined>;
  /** Options by camel-cased name (`--network-id` → `networkId`). */
  options: Record<string, unknown>;
}

/** What a command returns; the output layer prints it (JSON or human), never the handler. */
export interface CommandOutput {
  /** The value `--json` prints: the API's resource or list, as the API returned it. */
  data?: unknown;
  /** Human rendering; defaults to a plain rendering of `data`. */
  human?: (c: ChalkInstance) => string;
  /** Lines for stderr in human mode (notes, the generated secret warning). */
  notes?: string[];
  /**
   * Lines for stderr that must not be missed (a secret shown only this once): printed in every mode,
   * even with --quiet or --json (stdout stays one JSON document; stderr is free).
   */
  alerts?: string[];
  exitCode?: number;
  /** The command wrote its own output (streams): print nothing more. */
  streamed?: boolean;
}

export type Handler = (input: HandlerInput, ctx: Context) => Promise<CommandOutput>;

/** Command groups and what they hold, for `svc --help`. */
export const GROUPS: Record<string, string> = {
  merchants: 'sub-merchants: create, get, list, and their keys',
  invoices: 'invoices: create, get, list; simulate payments and expiry',
  webhook: "the partner's webhook: configure, listen and forward, verify signatures, deliveries",
  'webhook deliveries': 'webhook deliveries: list, inspect, resend, tail',
  time: "the emulator's clock",
  keys: 'API keys',
  fixtures: 'seed data from a file (CI)',
};
