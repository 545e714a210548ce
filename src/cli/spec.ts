import type { Style } from './output/style.js';
import type { Context } from './context.js';
import { type HandlerInput, type Input, inputProblem, isInputOf, type OptionsOf } from './spec-input.js';

export type { HandlerInput, Input } from './spec-input.js';

/**
 * A command, as data: commander is built from these (program.ts), and so are the command reference
 * (docs/cli.md) and the shell completions, so the three cannot drift apart. Declared with
 * `defineCommand`, which keeps the literal types of its arguments and options: the handler's input is
 * typed from them (`Handler<typeof spec>`, spec-input.ts).
 */
export interface CommandSpec<As extends readonly ArgSpec[] = readonly ArgSpec[], Os extends readonly OptionSpec[] = readonly OptionSpec[]> {
  /** Words after `svc`, e.g. `invoices create`. */
  readonly name: string;
  readonly summary: string;
  /** Longer help, shown by `svc <cmd> --help`. */
  readonly description?: string;
  readonly args?: As;
  readonly options?: Os;
  readonly examples?: readonly string[];
  /**
   * The handler watches `ctx.signal` and stops cleanly on it (Ctrl-C, SIGTERM), returning its own
   * exit code. Without it, a signal ends the command at once (exit 130).
   */
  readonly stopsOnSignal?: boolean;
  /**
   * The handler runs a child process and passes every stop signal on to it (`svc exec`), then waits
   * for it: main.ts then never exits on a signal itself. The first signal still aborts `ctx.signal`
   * (for the time before the child runs).
   */
  readonly forwardsSignals?: boolean;
}

export interface ArgSpec {
  readonly name: string;
  readonly description: string;
  /** Default true; `false` makes it `[name]`, and `args.name` possibly undefined. */
  readonly required?: boolean;
  /** The value is one of these (`args.name` is their union). */
  readonly choices?: readonly string[];
  /**
   * The rest of the command line, after `--` (`svc exec -- node test.js`): `args.name` is the list of
   * words, and they must follow `--`, so that their options are never taken for svc's. The last argument only.
   */
  readonly variadic?: boolean;
}

export type OptionParser = 'int' | 'positive-int' | 'string';

export interface OptionSpec {
  /**
   * commander syntax, with a long name: `--amount <amount>` (a value), `-p, --port <port>`,
   * `--unconfirmed` (a switch: boolean), `--no-color` (true unless given).
   */
  readonly flags: `${string}--${string}`;
  readonly description: string;
  /** `int`, `positive-int`: a number, or a usage error naming the flag. */
  readonly parse?: OptionParser;
  /** May be given several times; collected into an array. */
  readonly repeatable?: boolean;
  /** The value is one of these (typed as their union); a near miss gets "did you mean". */
  readonly choices?: readonly string[];
  /** Makes the value always set. */
  readonly defaultValue?: string | boolean | number;
}

/** What a command returns; the output layer prints it (JSON or human), never the handler. */
export interface CommandOutput {
  /** The value `--json` prints: the API's resource or list, as the API returned it. */
  data?: unknown;
  /** Human rendering; defaults to a plain rendering of `data`. */
  human?: (c: Style) => string;
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

/** The handler of a command: `export const fooCommand: Handler<typeof fooSpec> = async ({ args, options }, ctx) => …`. */
export type Handler<S extends CommandSpec> = (input: Input<S>, ctx: Context) => Promise<CommandOutput>;

/** A handler ready to run commander's values: checks them against its spec first (withHandler). */
export type Run = (input: HandlerInput, ctx: Context) => Promise<CommandOutput>;

/** A spec with its handler, which is imported only when the command runs. */
export interface LazyCommand extends CommandSpec {
  readonly load: () => Promise<Run>;
}

/** Declares a command; the literal types of its arguments and options are kept for `Handler<typeof spec>`. */
export function defineCommand<const As extends readonly ArgSpec[] = readonly [], const Os extends readonly OptionSpec[] = readonly []>(
  spec: CommandSpec<As, Os>,
): CommandSpec<As, Os> {
  return spec;
}

/** Options shared by several commands, with their literal types kept. */
export function defineOptions<const Os extends readonly OptionSpec[]>(options: Os): Os {
  return options;
}

/**
 * Binds a spec to its lazily imported handler, which must take exactly what the spec declares. (The
 * binding is separate from defineCommand because the handler's type refers to the spec's: a `load`
 * inside the spec would make its type depend on itself.)
 */
export function withHandler<S extends CommandSpec>(spec: S, load: () => Promise<Handler<S>>): LazyCommand {
  return {
    ...spec,
    load: async () => {
      const handler = await load();
      if (typeof handler !== 'function') throw new Error(`svc bug: the handler of "${spec.name}" is not a function`);
      return async (input, ctx) => {
        // commander parsed these by the same spec; a mismatch is a bug in svc, not a user error.
        if (!isInputOf(spec, input)) throw new Error(`svc bug: "${spec.name}" was given what its spec does not declare: ${inputProblem(spec, input)}`);
        return handler(input, ctx);
      };
    },
  };
}

/** Options every command accepts, before or after it (commander's program options). */
export const GLOBAL_OPTIONS = defineOptions([
  { flags: '--base-url <url>', description: 'the service to talk to (default: the local emulator started by `svc dev`)' },
  { flags: '--api-key <key>', description: 'API key to use; its prefix says partner (pt_…) or merchant' },
  { flags: '--profile <name>', description: 'a profile from the config file' },
  { flags: '--config <file>', description: 'config file (default: searched from the current folder up to the project root)' },
  { flags: '--json', description: 'print one JSON document on stdout (NDJSON for streams)' },
  { flags: '--no-color', description: 'no colours (also NO_COLOR)' },
  { flags: '-q, --quiet', description: 'print less' },
  { flags: '-v, --verbose', description: 'print more (request ids, idempotency keys)' },
]);

export type GlobalOptions = OptionsOf<typeof GLOBAL_OPTIONS>;

/** Command groups and what they hold, for `svc --help`. */
export const GROUPS: Record<string, string> = {
  merchants: 'sub-merchants: create, get, list, and their keys',
  invoices: 'invoices: create, get, list; simulate payments and expiry',
  webhook: "the partner's webhook: configure, listen and forward, verify signatures, deliveries",
  'webhook deliveries': 'webhook deliveries: list, inspect, resend, tail',
  'webhook chaos': 'duplicates, reordering, delays, bad and stale signatures on your deliveries',
  time: "the emulator's clock",
  snapshot: 'save and restore the whole state; export it to a file',
  logs: 'the API requests the emulator answered (the request journal)',
  faults: 'make API requests fail on purpose: errors, delays, dropped connections',
  keys: 'API keys',
  fixtures: 'seed data from a file (CI)',
  chain: 'local chains (svc dev --chains): list them, mine, pay invoices with real transactions',
};
