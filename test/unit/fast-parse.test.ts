/**
 * main.ts reads a plain command line itself (src/cli/fast-parse.ts) and leaves every other one to
 * commander: the two must agree. For every command, generated command lines (its words, its
 * options and the global ones in any order, valid and refused values, arguments, `--` and the rest,
 * unknown flags, help and version flags, groups of short flags) go through both; wherever the fast
 * reading answers, commander's action must have run the same command with the same arguments,
 * options and global options, or refused the line the same way (exit code and message).
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_COMMANDS } from '../../src/cli/commands/index.js';
import { fastParse } from '../../src/cli/fast-parse.js';
import { buildProgram } from '../../src/cli/program.js';
import { reachableCommands } from '../../src/cli/reachable.js';
import { type ProgramOptions, runCommand } from '../../src/cli/run-command.js';
import { GLOBAL_OPTIONS, type LazyCommand, type OptionSpec } from '../../src/cli/spec.js';

interface Outcome {
  ran: { name: string; input: unknown; globals: unknown } | null;
  exitCode: number;
  stderr: string;
}

/** Options that record what would run (nothing is loaded or run), and what reached stderr. */
function recorder(): { options: ProgramOptions; outcome: Outcome } {
  const outcome: Outcome = { ran: null, exitCode: 0, stderr: '' };
  const sink = new Writable({
    write(chunk, _enc, done) {
      outcome.stderr += String(chunk);
      done();
    },
  });
  const options: ProgramOptions = {
    setExitCode: (c) => (outcome.exitCode = c),
    io: { stdout: sink, stderr: sink, stdinIsTTY: false, env: {} },
    invoke: async (spec, input, ctx) => {
      outcome.ran = { name: spec.name, input, globals: ctx.globals };
      return 0;
    },
  };
  return { options, outcome };
}

async function viaCommander(argv: string[]): Promise<Outcome | 'refused'> {
  const { options, outcome } = recorder();
  try {
    await buildProgram(options, reachableCommands(argv, ALL_COMMANDS)).parseAsync(argv, { from: 'user' });
  } catch {
    return 'refused'; // commander's usage error, help or version: the fast reading must have left it
  }
  return outcome;
}

async function viaFastParse(argv: string[]): Promise<Outcome | null> {
  const parsed = fastParse(argv, reachableCommands(argv, ALL_COMMANDS));
  if (!parsed) return null;
  const { options, outcome } = recorder();
  await runCommand(parsed.spec, parsed.input, parsed.globals, argv, options);
  return outcome;
}

const longFlag = (o: OptionSpec) => o.flags.split(/[ ,]+/).find((f) => f.startsWith('--'))!;
const shortFlag = (o: OptionSpec) => o.flags.split(/[ ,]+/).find((f) => /^-[^-]$/.test(f));
const takesValue = (o: OptionSpec) => /<[^>]*>/.test(o.flags);

/** Words for one option: its flag (long or short), with a value that fits or not, or `--flag=value`. */
function optionWords(o: OptionSpec): fc.Arbitrary<string[]> {
  const flags = [longFlag(o), ...(shortFlag(o) ? [shortFlag(o)!] : [])];
  if (!takesValue(o))
    return fc.oneof(
      fc.constantFrom(...flags).map((f) => [f]),
      fc.constant<string[]>([`${longFlag(o)}=yes`]),
    );
  const good = o.choices
    ? fc.constantFrom(...o.choices)
    : o.parse
      ? fc.constantFrom('0', '1', '42', '4747')
      : fc.constantFrom('a', 'x.json', 'http://127.0.0.1:1', 'two words');
  const value = fc.oneof({ weight: 4, arbitrary: good }, fc.constantFrom('-1', 'abc', '', '1.5', '--json', 'nope'));
  return fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...flags), value).map(([f, v]) => [f, v]) },
    value.map((v) => [`${longFlag(o)}=${v}`]),
    fc.constantFrom(...flags).map((f) => [f]), // the value missing
  );
}

const JUNK = ['--bogus', '-x', '-5', 'extra', '--json=1', '-qv', '-h', '--help', '-V', '--version', 'help', '-'];

/** A command line for `spec`: its words, then options, global options, arguments and junk in any order. */
function lineFor(spec: LazyCommand): fc.Arbitrary<string[]> {
  const units: fc.Arbitrary<string[]>[] = [
    ...(spec.options ?? []).map(optionWords),
    ...GLOBAL_OPTIONS.map(optionWords),
    ...(spec.args ?? [])
      .filter((a) => !a.variadic)
      .map((a) => (a.choices ? fc.constantFrom(...a.choices, 'not-a-choice') : fc.constantFrom('id-1', 'x')).map((w) => [w])),
    fc.constantFrom(...JUNK).map((w) => [w]),
  ];
  const variadic = spec.args?.some((a) => a.variadic);
  return fc
    .record({
      before: fc.subarray(GLOBAL_OPTIONS.filter((o) => !takesValue(o)).map(longFlag), { maxLength: 2 }),
      middle: fc.array(fc.oneof(...units), { maxLength: 5 }),
      rest: variadic
        ? fc.oneof(
            fc.constant([]),
            fc.array(fc.constantFrom('node', '-e', '0', '--port', 'x.js'), { minLength: 1, maxLength: 4 }).map((w) => ['--', ...w]),
          )
        : fc.constant([]),
      words: fc.oneof({ weight: 9, arbitrary: fc.constant(spec.name.split(' ')) }, fc.constant(spec.name.split(' ').slice(0, 1))),
    })
    .map(({ before, middle, rest, words }) => [...before, ...words, ...middle.flat(), ...rest]);
}

describe('the fast reading of a command line', () => {
  it('agrees with commander wherever it answers, on generated lines for every command', async () => {
    let answered = 0;
    let total = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ALL_COMMANDS).chain(lineFor), async (argv) => {
        total++;
        const fast = await viaFastParse(argv);
        if (fast === null) return;
        answered++;
        expect(await viaCommander(argv), argv.join(' ')).toEqual(fast);
      }),
      { numRuns: 3000 },
    );
    // The property says something only if the fast reading answers often.
    expect(answered / total).toBeGreaterThan(0.2);
  });

  it.each([
    ['dev', '--memory', '--port', '0', '--json'],
    ['exec', '--', 'node', '-e', '0'],
    ['exec', '--port', '0', '--memory', '--', 'node', 'test.js', '--port', '3000'],
    ['invoices', 'create', '--amount', '1.00', '--json'],
    ['--json', 'invoices', 'create', '--amount=1.00', '--reference-id', 'order-1'],
    ['invoices', 'list', '--status', 'CREATED', '-q'],
    ['dev', '--allowed-host', 'a.test', '--allowed-host', 'b.test', '--no-color'],
    ['exec', 'node', '--', 'x'],
  ])('reads `svc %s …` as commander does', async (...argv) => {
    const fast = await viaFastParse(argv);
    expect(fast).not.toBeNull();
    expect(await viaCommander(argv)).toEqual(fast);
  });

  it.each([
    ['--help'],
    ['dev', '-h'],
    ['-V'],
    ['dev', '--port', 'abc'],
    ['dev', '--port'],
    ['dev', '--port', '-1'],
    ['invoices'],
    ['invoices', 'create', '--amount', '1', '--amount', '2'],
    ['-qv', 'invoices', 'list'],
    ['dev', '--memroy'],
    ['exec', 'node', '--test'],
    ['help', 'dev'],
  ])('leaves `svc %s …` to commander', (...argv) => {
    expect(fastParse(argv, reachableCommands(argv, ALL_COMMANDS))).toBeNull();
  });
});
