import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_COMMANDS } from '../../src/cli/commands/index.js';
import { cliReference, REFERENCE_COMMAND, REFERENCE_END, REFERENCE_START, withReference } from '../../src/cli/reference.js';
import type { CommandSpec } from '../../src/cli/spec.js';
import { ROOT } from '../helpers/cli.js';

/** The README's command reference is generated from the command specs; it must match them exactly. */
describe('README command reference', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');

  it('is what the command definitions generate (no drift)', () => {
    const start = readme.indexOf(REFERENCE_START);
    const end = readme.indexOf(REFERENCE_END);
    expect(start, `README.md needs the ${REFERENCE_START} marker`).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const current = readme.slice(start, end + REFERENCE_END.length);
    const generated = cliReference();
    if (current !== generated) {
      const a = current.split('\n');
      const b = generated.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      expect.fail(
        `README.md's command reference is out of date: run \`${REFERENCE_COMMAND}\` to regenerate it.\n` +
          `First difference, line ${line + 1} of the section:\n  README:    ${a[line]}\n  generated: ${b[line]}`,
      );
    }
  });

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
    const spec: CommandSpec = {
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

  it('replaces only what is between the markers', () => {
    const doc = `before\n${REFERENCE_START}\nold\n${REFERENCE_END}\nafter\n`;
    expect(withReference(doc, `${REFERENCE_START}\nnew\n${REFERENCE_END}`)).toBe(`before\n${REFERENCE_START}\nnew\n${REFERENCE_END}\nafter\n`);
    expect(() => withReference('no markers')).toThrow(/markers/);
  });
});
