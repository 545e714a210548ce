import { describe, expect, it } from 'vitest';
import { ALL_COMMANDS } from '../../src/cli/commands/index.js';
import { reachableCommands } from '../../src/cli/reachable.js';

const names = (argv: string[]) => reachableCommands(argv, ALL_COMMANDS).map((c) => c.name);
const ALL = ALL_COMMANDS.map((c) => c.name);

describe('reachableCommands: the part of the command tree the CLI builds for an argv', () => {
  it('is the command, or the group, its first word names', () => {
    expect(names(['dev', '--memory'])).toEqual(['dev']);
    expect(names(['invoices', 'create', '--amount', '1.00'])).toEqual(ALL.filter((n) => n.startsWith('invoices ')));
    expect(names(['webhook', 'deliveries', 'list'])).toEqual(ALL.filter((n) => n.startsWith('webhook ')));
    expect(names(['invoices'])).toEqual(ALL.filter((n) => n.startsWith('invoices ')));
  });

  it('skips global options, and the values of those that take one', () => {
    expect(names(['--json', '--config', 'dev', 'dev'])).toEqual(['dev']); // a config file named "dev"
    expect(names(['--base-url=http://x', '-q', '--no-color', 'keys', 'list'])).toEqual(ALL.filter((n) => n.startsWith('keys ')));
    expect(names(['--profile', 'ci', '--api-key', 'pt_test_x', 'status'])).toEqual(['status']);
  });

  it('is every command for help, no command, a word that names none, or an option it does not know', () => {
    expect(names([])).toEqual(ALL);
    expect(names(['--help'])).toEqual(ALL);
    expect(names(['help', 'dev'])).toEqual(ALL);
    expect(names(['invoice', 'create'])).toEqual(ALL); // commander suggests "invoices"
    expect(names(['--frobnicate', 'dev'])).toEqual(ALL);
    expect(names(['--', 'dev'])).toEqual(ALL);
    expect(names(['--config'])).toEqual(ALL);
  });
});
