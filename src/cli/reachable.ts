import { GLOBAL_OPTIONS, type LazyCommand } from './spec.js';
import { readFlags } from './spec-input.js';

/** The spellings of the global options of one kind of value (`value`: `--config <file>`, whose value is not the command word). */
const globalFlags = (kind: 'value' | 'switch'): Set<string> =>
  new Set(GLOBAL_OPTIONS.map((o) => readFlags(o.flags)).flatMap((f) => (f.kind === kind ? f.names : [])));

/**
 * The commands `argv` can run: those under its first word when that word names a command or a
 * group (`svc invoices create …` → the `invoices` group), so that the CLI builds only that part of
 * its command tree (building all of it took ~8 ms of every command). Anything else (no command,
 * `--help`, `help`, a typo that wants suggestions, an option it does not know) gets every command.
 */
export function reachableCommands(argv: readonly string[], commands: readonly LazyCommand[]): readonly LazyCommand[] {
  const takesValue = globalFlags('value');
  const switches = globalFlags('switch');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return commands;
    if (arg.startsWith('-')) {
      const flag = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
      if (takesValue.has(flag)) {
        if (!arg.includes('=')) i++;
      } else if (!switches.has(arg)) return commands;
      continue;
    }
    const under = commands.filter((c) => c.name === arg || c.name.startsWith(`${arg} `));
    return under.length > 0 ? under : commands;
  }
  return commands;
}
