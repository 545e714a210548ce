import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { VERSION } from '../version.js';
import { ALL_COMMANDS } from './commands/index.js';
import { GLOBAL_OPTIONS, GROUPS, type CommandSpec, type HandlerInput, type LazyCommand, type OptionSpec } from './spec.js';
import { type ProgramOptions, runCommand } from './run-command.js';
import { didYouMean } from '../domain/suggest.js';
import { stdStream } from './output/std.js';

// main.ts reads a plain command line itself (fast-parse.ts) and loads this module, and commander with
// it, only for the others: help, errors, suggestions.
export { CommanderError } from 'commander';

export type { ProgramOptions } from './run-command.js';

/** The whole command tree, built from the command specs. Handlers are imported when they run. */
export function buildProgram(options: ProgramOptions, commands: readonly LazyCommand[] = ALL_COMMANDS): Command {
  const program = new Command('svc')
    .description('Run the crypto payment invoicing service locally, and drive it.')
    .version(VERSION, '-V, --version', 'print the version');
  for (const opt of GLOBAL_OPTIONS) program.addOption(toOption(opt));
  program
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true })
    .addHelpText(
      'after',
      '\nExit codes: 0 success, 1 the service refused or a user error, 2 usage error, 3 service unreachable, 4 a bug in svc (please report it), 130 stopped by Ctrl-C.',
    );
  program.configureOutput({
    writeOut: (s) => void (options.io?.stdout ?? stdStream(1)).write(s),
    writeErr: (s) => void (options.io?.stderr ?? stdStream(2)).write(s),
    // commander's own usage errors (an unknown command or option, too many arguments) in svc's style.
    outputError: (s, write) => write(svcStyleError(s)),
  });
  // Before any subcommand is added: they inherit it, and only main.ts may exit.
  program.exitOverride();

  const groups = new Map<string, Command>([['', program]]);
  const groupOf = (words: string[]): Command => {
    const key = words.join(' ');
    const existing = groups.get(key);
    if (existing) return existing;
    const parent = groupOf(words.slice(0, -1));
    const group = parent
      .command(words.at(-1)!)
      .description(GROUPS[key] ?? '')
      .copyInheritedSettings(parent);
    groups.set(key, group);
    return group;
  };

  for (const spec of commands) {
    const words = spec.name.split(' ');
    const cmd = groupOf(words.slice(0, -1)).command(words.at(-1)!).description(spec.summary);
    if (spec.description) cmd.addHelpText('before', `${spec.description}\n`);
    for (const arg of spec.args ?? []) {
      // Every argument is optional to commander: its "missing required argument 'event'" is another
      // style than svc's and cannot list choices. The action checks it (missingArgument), and the
      // usage line still shows it as required.
      const name = arg.variadic ? `${arg.name}...` : arg.name;
      const a = cmd.createArgument(`[${name}]`, arg.description);
      if (arg.choices) a.choices(arg.choices).argParser(choiceParser(arg.choices, `<${arg.name}>`));
      cmd.addArgument(a);
    }
    if (spec.args?.some((a) => a.required !== false && a.choices)) {
      cmd.usage([...(spec.options?.length ? ['[options]'] : []), ...spec.args.map((a) => (a.required === false ? `[${a.name}]` : `<${a.name}>`))].join(' '));
    } else if (spec.args?.some((a) => a.required !== false && !a.variadic)) {
      cmd.usage(['[options]', ...spec.args.map((a) => (a.required === false ? `[${a.name}]` : `<${a.name}>`))].join(' '));
    }
    if (spec.args?.some((a) => a.variadic)) {
      cmd.usage(argsUsage(spec));
      dashesHint(cmd, spec);
    }
    for (const opt of spec.options ?? []) cmd.addOption(toOption(opt));
    if (spec.examples?.length) cmd.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}`);
    cmd.action(async () => {
      // What commander parsed, still untyped: withHandler checks it against the spec before the handler
      // gets it. Global options are the program's own, wherever they were given.
      const input: HandlerInput = {
        args: Object.fromEntries((spec.args ?? []).map((a, i) => [a.name, cmd.processedArgs[i]])),
        options: cmd.opts(),
      };
      await runCommand(spec, input, program.opts(), rawArgsOf(program), options);
    });
  }
  return program;
}

/**
 * `svc exec node --test`: commander meets `--test` after the command's first word and calls it an
 * unknown option of svc's ("Did you mean --host?"), which sends people the wrong way. When a word
 * of the command came before it, the fix is `--`: say so, as notAfterDashes does for a line
 * commander accepts. An unknown option before any command word is svc's own typo: commander's message.
 */
function dashesHint(cmd: Command, spec: CommandSpec): void {
  const arg = spec.args?.find((a) => a.variadic);
  if (!arg) return;
  // unknownOption is commander's own hook (not in its typings); `cmd.args` holds the operands, then the unknown words.
  const original: (flag: string) => void = Reflect.get(cmd, 'unknownOption');
  Reflect.set(cmd, 'unknownOption', function (this: Command, flag: string) {
    const at = this.args.indexOf(flag);
    if (at <= 0) return original.call(this, flag);
    this.error(
      `error: unknown option '${flag}' after the ${arg.name}: put -- before the ${arg.name}, so that its options are not taken for svc's: svc ${spec.name} [options] -- ${this.args.join(' ')}`,
      { code: 'commander.unknownOption', exitCode: 2 },
    );
  });
}

/**
 * commander's error text in svc's: `error unknown option '--statuss'. Did you mean "--status"?` for
 * `error: unknown option '--statuss'` and its suggestion on a line of its own. commander's messages
 * begin with `error: `; one that did not would be shown as it comes.
 */
export function svcStyleError(text: string): string {
  const quoted = (names: string) => names.split(', ').map((n) => `"${n}"`);
  return text
    .replace(/^error: /, 'error ')
    .replace(/\n\(Did you mean (?:one of )?([^\n]+?)\?\)/, (_, names: string) => `. Did you mean ${quoted(names).join(' or ')}?`);
}

/** The words commander parsed: its `rawArgs`, set by parse() (not in its typings); tests hold it (cli-mapping). */
function rawArgsOf(program: Command): readonly string[] {
  const raw: unknown = Reflect.get(program, 'rawArgs');
  return Array.isArray(raw) ? raw.map(String) : [];
}

/** The usage line of a command whose last argument takes the rest of the line: `[options] -- <command> [args...]`. */
export function argsUsage(spec: CommandSpec): string {
  const words = (spec.args ?? []).map((a) => (a.variadic ? `-- <${a.name}> [args...]` : a.required === false ? `[${a.name}]` : `<${a.name}>`));
  return [...(spec.options?.length ? ['[options]'] : []), ...words].join(' ');
}

/**
 * commander's check of `choices`, plus the closest choice when the value looks like a typo of one. A
 * UsageError, not commander's InvalidArgumentError: commander would prefix its own sentence
 * ("command-argument value 'x' is invalid for argument 'event'."); it passes other errors on as they are.
 */
function choiceParser(choices: readonly string[], name: string) {
  return (value: string): string => {
    if (!choices.includes(value)) throw new UsageError(`${name} must be one of ${choices.join(', ')}, not "${value}".${didYouMean(value, choices)}`, name);
    return value;
  };
}

function toOption(spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description);
  if (spec.choices) option.choices(spec.choices);
  if (spec.defaultValue !== undefined) option.default(spec.defaultValue);
  const flag = spec.flags.split(/[ ,]/).find((f) => f.startsWith('--'))!;
  const parse = spec.parse ? parser(spec.parse, flag) : spec.choices ? choiceParser(spec.choices, flag) : (v: string) => v;
  if (spec.repeatable) option.argParser((value: string, previous: unknown) => [...(Array.isArray(previous) ? previous : []), parse(value)]);
  else if (spec.parse || spec.choices) option.argParser(parse);
  return option;
}

function parser(kind: NonNullable<OptionSpec['parse']>, flag: string) {
  return (value: string): unknown => {
    if (kind === 'string') return value;
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || (kind === 'positive-int' && n === 0)) {
      // A usage error naming the option (see choiceParser).
      throw new UsageError(`${flag} must be a ${kind === 'positive-int' ? 'positive ' : ''}whole number, not "${value}".`, flag);
    }
    return n;
  };
}
