import { UsageError } from '../errors.js';
import { createContext, type Context, type ContextInput } from './context.js';
import { renderError, renderOutput } from './output/render.js';
import { GLOBAL_OPTIONS, type CommandSpec, type HandlerInput, type LazyCommand } from './spec.js';
import { isOptionsOf, optionsProblem } from './spec-input.js';

/** How the CLI runs a command: where its exit code, streams and signals go (main.ts, tests). */
export interface ProgramOptions {
  /** Receives the exit code of the command that ran. */
  setExitCode(code: number): void;
  /** Streams and environment (tests run the CLI in-process with their own). */
  io?: Omit<ContextInput, 'globals'>;
  /** Told which command is about to run (main.ts decides what a signal means for it). */
  onCommand?: (spec: CommandSpec) => void;
  /** Replaces running the handler: the argv → handler mapping tests record what would run. */
  invoke?: (spec: LazyCommand, input: HandlerInput, ctx: Context) => Promise<number>;
}

/**
 * Runs a parsed command: what commander's action does (program.ts), and main.ts's own reading of a
 * plain command line (fast-parse.ts). `globals` are the program's options, `rawArgs` the command line.
 */
export async function runCommand(
  spec: LazyCommand,
  input: HandlerInput,
  globals: Record<string, unknown>,
  rawArgs: readonly string[],
  options: ProgramOptions,
): Promise<void> {
  options.onCommand?.(spec);
  if (!isOptionsOf(GLOBAL_OPTIONS, globals)) throw new Error(`svc bug: the global options are not as declared: ${optionsProblem(GLOBAL_OPTIONS, globals)}`);
  const ctx = createContext({ ...options.io, globals, command: spec.name });
  const missing = missingArgument(spec, input) ?? notAfterDashes(spec, input, rawArgs);
  if (missing) {
    options.setExitCode(renderError(missing, ctx));
    return;
  }
  if (options.invoke) {
    options.setExitCode(await options.invoke(spec, input, ctx));
    return;
  }
  try {
    const handler = await spec.load();
    options.setExitCode(renderOutput(await handler(input, ctx), ctx));
  } catch (error) {
    options.setExitCode(renderError(error, ctx));
  }
}

/** A required argument that was not given: a usage error naming it, and listing its choices. */
function missingArgument(spec: CommandSpec, input: HandlerInput): UsageError | null {
  const given = (value: unknown) => value !== undefined && !(Array.isArray(value) && value.length === 0);
  const arg = spec.args?.find((a) => a.required !== false && !given(input.args[a.name]));
  if (!arg) return null;
  const choices = arg.choices ? `: one of ${arg.choices.join(', ')}` : '';
  return new UsageError(`missing required argument <${arg.name}>${choices}`, `<${arg.name}>`);
}

/**
 * A variadic argument is the rest of the line after `--` (`svc exec -- node server.js --port 3000`):
 * without `--`, commander would take `--port 3000` for svc's own option and run `node server.js`.
 */
function notAfterDashes(spec: CommandSpec, input: HandlerInput, rawArgs: readonly string[]): UsageError | null {
  const arg = spec.args?.find((a) => a.variadic);
  const given = arg ? input.args[arg.name] : undefined;
  if (!arg || !Array.isArray(given)) return null;
  const dashes = rawArgs.indexOf('--');
  const rest = dashes === -1 ? [] : rawArgs.slice(dashes + 1);
  if (rest.length === given.length && rest.every((word, i) => word === given[i])) return null;
  return new UsageError(`put -- before the ${arg.name}, so that its options are not taken for svc's: svc ${spec.name} [options] -- ${given.join(' ')}`, '--');
}
