import { ALL_COMMANDS } from '../commands/index.js';
import { buildProgram } from '../program.js';
import { GROUPS, type LazyCommand } from '../spec.js';

/**
 * What shell completion needs to know, derived from the command specs (and, for the global
 * options, from the program built from them), so the scripts cannot drift from the commands.
 */
export interface CompletionModel {
  globals: OptionModel[];
  /** Group path ('' for `svc` itself) → the words that may follow it. */
  groups: Map<string, Word[]>;
  /** Command path (`invoices create`) → its options and positional arguments. */
  commands: Map<string, CommandModel>;
}

export interface Word {
  word: string;
  description: string;
}

export interface OptionModel {
  /** `-p`, `--port`. */
  names: string[];
  description: string;
  /** The value's placeholder (`port`), or null for a switch. */
  value: string | null;
  choices: readonly string[] | null;
  /** The value is a file name. */
  file: boolean;
  repeatable: boolean;
}

export interface ArgModel {
  name: string;
  description: string;
  choices: readonly string[] | null;
  file: boolean;
  required: boolean;
}

export interface CommandModel {
  path: string;
  summary: string;
  options: OptionModel[];
  args: ArgModel[];
}

export function parseFlags(flags: string): { names: string[]; value: string | null } {
  const tokens = flags.split(/[ ,|]+/).filter(Boolean);
  const value = tokens.find((t) => /^[<[]/.test(t));
  return { names: tokens.filter((t) => t.startsWith('-')), value: value ? value.slice(1, -1) : null };
}

export function completionModel(commands: readonly LazyCommand[] = ALL_COMMANDS): CompletionModel {
  const program = buildProgram({ setExitCode: () => {} }, commands);
  const globals: OptionModel[] = [...program.options.map((o) => option(o.flags, o.description, null, false)), option('-h, --help', 'show help', null, false)];
  const groups = new Map<string, Word[]>();
  const add = (group: string, word: Word) => {
    const list = groups.get(group) ?? [];
    if (!list.some((w) => w.word === word.word)) list.push(word);
    groups.set(group, list);
  };
  const model: CompletionModel = { globals, groups, commands: new Map() };
  for (const spec of commands) {
    const words = spec.name.split(' ');
    words.forEach((word, i) => {
      const path = words.slice(0, i + 1).join(' ');
      add(words.slice(0, i).join(' '), { word, description: i === words.length - 1 ? spec.summary : (GROUPS[path] ?? '') });
    });
    model.commands.set(spec.name, {
      path: spec.name,
      summary: spec.summary,
      options: (spec.options ?? []).map((o) => option(o.flags, o.description, o.choices ?? null, o.repeatable === true)),
      args: (spec.args ?? []).map((a) => ({
        name: a.name,
        description: a.description,
        choices: a.choices ?? null,
        file: a.name === 'file',
        required: a.required !== false,
      })),
    });
  }
  return model;
}

function option(flags: string, description: string, choices: readonly string[] | null, repeatable: boolean): OptionModel {
  const { names, value } = parseFlags(flags);
  return { names, description, value, choices, file: value === 'file', repeatable };
}
