import { ALL_COMMANDS } from './commands/index.js';
import { argsUsage, buildProgram } from './program.js';
import type { CommandSpec, LazyCommand } from './spec.js';

/** The markers the generated reference sits between, in docs/cli.md. */
export const REFERENCE_START = '<!-- cli-reference:start -->';
export const REFERENCE_END = '<!-- cli-reference:end -->';
/** What to run when docs/cli.md is out of date; named by the drift test. */
export const REFERENCE_COMMAND = 'npm run docs:cli';

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string): string => `\`${s}\``;

function optionRow(
  flags: string,
  description: string,
  extra: { choices?: readonly string[] | undefined; defaultValue?: unknown; repeatable?: boolean } = {},
): string {
  const notes = [
    extra.choices ? `one of ${extra.choices.map(code).join(', ')}` : '',
    extra.defaultValue !== undefined ? `default ${code(String(extra.defaultValue))}` : '',
    extra.repeatable ? 'repeatable' : '',
    // A description may already say "(repeatable)" for `--help`, which shows no notes: say it once.
  ].filter((note) => note && !description.includes(`(${note})`));
  return `| ${code(flags)} | ${cell(description)}${notes.length ? ` (${notes.join('; ')})` : ''} |`;
}

function usage(spec: CommandSpec): string {
  if (spec.args?.some((a) => a.variadic)) return ['svc', spec.name, argsUsage(spec)].join(' ');
  const args = (spec.args ?? []).map((a) => (a.required === false ? `[${a.name}]` : `<${a.name}>`));
  return ['svc', spec.name, ...args, ...(spec.options?.length ? ['[options]'] : [])].join(' ');
}

function commandSection(spec: CommandSpec): string {
  const parts = [`#### \`svc ${spec.name}\``, '', `${spec.summary[0]!.toUpperCase()}${spec.summary.slice(1)}.`];
  if (spec.description) parts.push('', spec.description);
  parts.push('', '```', usage(spec), '```');
  const args = spec.args ?? [];
  if (args.length) {
    parts.push('', '| Argument | |', '|---|---|');
    for (const a of args) parts.push(`| ${code(`<${a.name}>`)} | ${cell(a.description)}${a.choices ? `: ${a.choices.map(code).join(', ')}` : ''} |`);
  }
  const options = spec.options ?? [];
  if (options.length) {
    parts.push('', '| Option | |', '|---|---|');
    for (const o of options)
      parts.push(optionRow(o.flags, o.description, { choices: o.choices, defaultValue: o.defaultValue, repeatable: o.repeatable === true }));
  }
  if (spec.examples?.length) parts.push('', '```sh', ...spec.examples, '```');
  return parts.join('\n');
}

const anchor = (name: string): string => `svc-${name.replace(/ /g, '-')}`;

/**
 * The command reference (docs/cli.md), generated from the command specs and the program's global
 * options (the same definitions commander is built from), so the two cannot drift apart.
 */
export function cliReference(commands: readonly LazyCommand[] = ALL_COMMANDS): string {
  const program = buildProgram({ setExitCode: () => {} }, commands);
  const globals = program.options.map((o) => optionRow(o.flags, o.description));
  return [
    REFERENCE_START,
    `<!-- Generated from the command definitions (src/cli/commands/) by \`${REFERENCE_COMMAND}\`; edit those, not this. -->`,
    '',
    '| Command | |',
    '|---|---|',
    ...commands.map((s) => `| [\`svc ${s.name}\`](#${anchor(s.name)}) | ${cell(s.summary)} |`),
    '',
    'Global options, accepted by every command (before or after it):',
    '',
    '| Option | |',
    '|---|---|',
    ...globals,
    `| ${code('-h, --help')} | help for svc or for a command (\`svc invoices create --help\`) |`,
    '',
    ...commands.map((s) => `${commandSection(s)}\n`),
    REFERENCE_END,
  ].join('\n');
}

/** `doc` with the text between the markers replaced by a fresh reference; throws without markers. */
export function withReference(doc: string, reference: string = cliReference()): string {
  const start = doc.indexOf(REFERENCE_START);
  const end = doc.indexOf(REFERENCE_END);
  if (start === -1 || end < start) throw new Error(`the document has no ${REFERENCE_START} … ${REFERENCE_END} markers`);
  return `${doc.slice(0, start)}${reference}${doc.slice(end + REFERENCE_END.length)}`;
}
