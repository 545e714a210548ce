import { readFlags } from './spec-input.js';
import { GLOBAL_OPTIONS, type HandlerInput, type LazyCommand, type OptionSpec } from './spec.js';

/**
 * The command line commander would parse, read without commander (bench #9, #12, #16): building the
 * program and parsing took a fifth of a command's own time, and loading commander more. Only the
 * plain lines every script writes are read here, `svc <command words> [args] [--option value]
 * [--switch] [-- rest]`, to exactly what commander gives the action (program.ts); anything else
 * returns null and commander parses it, with its help, errors and suggestions: an option no spec
 * declares, -h, -V, combined short flags, an option given twice, a value that starts with "-" or that
 * its parser or choices refuse, too many arguments, a group without its command. test/unit/fast-parse
 * .test.ts holds the two to the same result on generated command lines.
 *
 * The order is commander's: the program's options are taken from anywhere in the line (`--` ends
 * them), the command's words are the first operands, and the command's options are read from what
 * the program did not know, after its operands.
 */
export interface FastParse {
  spec: LazyCommand;
  input: HandlerInput;
  globals: Record<string, unknown>;
}

interface Flag {
  spec: OptionSpec;
  key: string;
  takesValue: boolean;
  negates: boolean;
}

/** The flags of `options`, by each spelling (`-p`, `--port`); null when one is of a kind not read here. */
function flagsOf(options: readonly OptionSpec[]): Map<string, Flag> | null {
  const flags = new Map<string, Flag>();
  for (const spec of options) {
    if (spec.flags.includes('[')) return null; // an optional value: commander's rules for it are not mirrored
    const { names, long, key, kind } = readFlags(spec.flags);
    const flag: Flag = { spec, key, takesValue: kind === 'value', negates: long.startsWith('no-') };
    for (const name of names) flags.set(name, flag);
  }
  return flags;
}

/** The values commander starts from: declared defaults, and true for a `--no-` switch. */
function defaultsOf(options: readonly OptionSpec[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const spec of options) {
    const { key, names } = readFlags(spec.flags);
    if (spec.defaultValue !== undefined) values[key] = spec.defaultValue;
    else if (names.some((n) => n.startsWith('--no-'))) values[key] = true;
  }
  return values;
}

const INT = /^\d+$/;

/** A value as the option's parser would take it (program.ts `toOption`), or undefined when it would refuse it. */
function parsedValue(spec: OptionSpec, value: string): unknown {
  if (spec.parse === 'int' || spec.parse === 'positive-int') {
    const n = Number(value);
    if (!INT.test(value) || !Number.isSafeInteger(n) || (spec.parse === 'positive-int' && n === 0)) return undefined;
    return n;
  }
  if (spec.choices && !spec.choices.includes(value)) return undefined;
  return value;
}

/**
 * Reads one option at `args[i]` into `values` when it is one of `flags` (also `--name=value`).
 * Returns how many words it took (0: not one of them), or null when commander must read the line.
 */
function readOption(args: readonly string[], i: number, flags: Map<string, Flag>, values: Record<string, unknown>, seen: Set<string>): number | null {
  const word = args[i]!;
  const eq = word.startsWith('--') ? word.indexOf('=') : -1;
  const flag = flags.get(eq > 0 ? word.slice(0, eq) : word);
  if (!flag) {
    // -qv: a group of short flags, which commander takes apart; not read here.
    if (/^-[^-]./.test(word) && flags.has(`-${word[1]}`)) return null;
    return 0;
  }
  if (eq > 0 && !flag.takesValue) return null;
  if (seen.has(flag.key) && !flag.spec.repeatable) return null;
  seen.add(flag.key);
  if (!flag.takesValue) {
    values[flag.key] = !flag.negates;
    return 1;
  }
  const raw = eq > 0 ? word.slice(eq + 1) : args[i + 1];
  if (raw === undefined || (eq < 0 && raw.startsWith('-'))) return null;
  const value = parsedValue(flag.spec, raw);
  if (value === undefined) return null;
  const previous = values[flag.key];
  values[flag.key] = flag.spec.repeatable ? [...(Array.isArray(previous) ? previous : []), value] : value;
  return eq > 0 ? 1 : 2;
}

const isOptionLike = (word: string) => word.length > 1 && word.startsWith('-');

/** The command `argv` runs and what commander would give it, or null (commander parses it). */
export function fastParse(argv: readonly string[], commands: readonly LazyCommand[]): FastParse | null {
  const globalFlags = flagsOf(GLOBAL_OPTIONS);
  if (!globalFlags) return null;
  // The program's turn: its options from anywhere before `--`; the rest kept in order, operands
  // apart from what follows the first option it does not know (commander's `unknown`).
  const globals = defaultsOf(GLOBAL_OPTIONS);
  const seenGlobals = new Set<string>();
  const operands: string[] = [];
  const unknown: string[] = [];
  let dest = operands;
  for (let i = 0; i < argv.length; ) {
    const word = argv[i]!;
    if (word === '--') {
      if (dest === unknown) dest.push(word);
      dest.push(...argv.slice(i + 1));
      break;
    }
    if (isOptionLike(word)) {
      const took = readOption(argv, i, globalFlags, globals, seenGlobals);
      if (took === null) return null;
      if (took > 0) {
        i += took;
        continue;
      }
      dest = unknown;
    }
    dest.push(word);
    i++;
  }

  const spec = commands.find((c) => {
    const words = c.name.split(' ');
    return words.every((w, k) => operands[k] === w);
  });
  if (!spec) return null;
  const words = spec.name.split(' ').length;
  // Another command below these words (`svc webhook deliveries list` when `webhook deliveries` ran):
  // commander's dispatch decides.
  if (commands.some((c) => c !== spec && c.name.startsWith(`${spec.name} `) && c.name.split(' ')[words] === operands[words])) return null;

  // The command's turn: its options from what the program did not know; `--` ends them.
  const commandFlags = flagsOf(spec.options ?? []);
  if (!commandFlags) return null;
  const options = defaultsOf(spec.options ?? []);
  const seen = new Set<string>();
  const rest = operands.slice(words);
  for (let i = 0; i < unknown.length; ) {
    const word = unknown[i]!;
    if (word === '--') {
      rest.push(...unknown.slice(i + 1));
      break;
    }
    if (isOptionLike(word)) {
      const took = readOption(unknown, i, commandFlags, options, seen);
      // An option nobody declares: commander's error (or its help, for -h).
      if (took === null || took === 0) return null;
      i += took;
      continue;
    }
    rest.push(word);
    i++;
  }

  const declared = spec.args ?? [];
  const args: Record<string, unknown> = {};
  for (const [k, arg] of declared.entries()) {
    if (arg.variadic) {
      // The rest, as commander collects it (words before `--` are the action's notAfterDashes error).
      args[arg.name] = rest.slice(k);
      continue;
    }
    const value = rest[k];
    if (value !== undefined && arg.choices && !arg.choices.includes(value)) return null;
    args[arg.name] = value;
  }
  // Too many arguments: commander's error.
  if (!declared.some((a) => a.variadic) && rest.length > declared.length) return null;
  return { spec, input: { args, options }, globals };
}
