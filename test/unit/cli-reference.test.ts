import { describe, expect, it } from 'vitest';
import { ALL_COMMANDS } from '../../src/cli/commands/index.js';
import { cliReference, REFERENCE_END, REFERENCE_START, withReference } from '../../src/cli/reference.js';
import type { LazyCommand } from '../../src/cli/spec.js';

/** The command reference is generated from the command specs (docs/cli.md holds it; test/integration/docs-cli-reference checks it is current). */
describe('command reference', () => {
  it('lists every command, with every option and argument', () => {
    const generated = cliReference();
    for (const spec of ALL_COMMANDS) {
      expect(generated).toContain(`#### \`svc ${spec.name}\``);
      for (const option of spec.options ?? []) expect(generated, `${spec.name} ${option.flags}`).toContain(`\`${option.flags}\``);
      for (const arg of spec.args ?? []) expect(generated).toContain(`\`<${arg.name}>\``);
    }
    for (const global of [
      '--base-url <url>',
      '--api-key <key>',
      '--profile <name>',
      '--config <file>',
      '--json',
      '--no-color',
      '-q, --quiet',
      '-v, --verbose',
    ]) {
      expect(generated).toContain(`\`${global}\``);
    }
  });

  it('is generated from the specs it is given: choices, defaults, repeatable options, examples', () => {
    const spec: LazyCommand = {
      name: 'demo run',
      summary: 'a demo | with a pipe',
      description: 'Longer text.',
      args: [
        { name: 'kind', description: 'which', choices: ['a', 'b'] },
        { name: 'extra', description: 'optional', required: false },
      ],
      options: [
        { flags: '--level <n>', description: 'how much', choices: ['1', '2'], defaultValue: '1' },
        { flags: '--tag <t>', description: 'a tag', repeatable: true },
      ],
      examples: ['svc demo run a'],
      load: async () => async () => ({}),
    };
    const text = cliReference([spec]);
    expect(text).toContain('| [`svc demo run`](#svc-demo-run) | a demo \\| with a pipe |');
    expect(text).toContain('svc demo run <kind> [extra] [options]');
    expect(text).toContain('| `<kind>` | which: `a`, `b` |');
    expect(text).toContain('| `--level <n>` | how much (one of `1`, `2`; default `1`) |');
    expect(text).toContain('| `--tag <t>` | a tag (repeatable) |');
    expect(text).toContain('```sh\nsvc demo run a\n```');
  });

  it('does not repeat a note the description already states (issue 24: "(repeatable) (repeatable)")', () => {
    const spec: LazyCommand = {
      name: 'demo tag',
      summary: 'tags',
      options: [{ flags: '--tag <t>', description: 'a tag (repeatable)', repeatable: true }],
      load: async () => async () => ({}),
    };
    expect(cliReference([spec])).toContain('| `--tag <t>` | a tag (repeatable) |');
    expect(cliReference()).not.toMatch(/\((repeatable)\) \(\1\)/);
  });

  it('a command taking the rest of the line shows -- in its usage', () => {
    const spec: LazyCommand = {
      name: 'demo exec',
      summary: 'runs a command',
      args: [{ name: 'command', description: 'what to run', variadic: true }],
      options: [{ flags: '--log <file>', description: 'a log' }],
      load: async () => async () => ({}),
    };
    const text = cliReference([spec]);
    expect(text).toContain('```\nsvc demo exec [options] -- <command> [args...]\n```');
    expect(text).toContain('| `<command>` | what to run |');
  });

  it('replaces only what is between the markers', () => {
    const doc = `before\n${REFERENCE_START}\nold\n${REFERENCE_END}\nafter\n`;
    expect(withReference(doc, `${REFERENCE_START}\nnew\n${REFERENCE_END}`)).toBe(`before\n${REFERENCE_START}\nnew\n${REFERENCE_END}\nafter\n`);
    expect(() => withReference('no markers')).toThrow(/markers/);
  });
});
