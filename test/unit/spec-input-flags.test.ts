/**
 * An option's flags are read by hand (readFlags, src/cli/spec-input.ts), not with the regular
 * expressions that stated the rules: the same spellings, long name, key and kind for every option
 * the CLI declares, and for any flags text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFlags } from '../../src/cli/spec-input.js';
import { GLOBAL_OPTIONS } from '../../src/cli/spec.js';
import { ALL_COMMANDS } from '../../src/cli/commands/index.js';

/** The rules as they were written. */
function byExpressions(flags: string) {
  const names = flags.split(/[ ,|]+/).filter((f) => f.startsWith('-'));
  const long = names.find((f) => f.startsWith('--'))?.slice(2) ?? '';
  return {
    names,
    long,
    key: long.replace(/^no-/, '').replace(/-([^-])/g, (_, c: string) => c.toUpperCase()),
    kind: /<[^>]*>/.test(flags) ? 'value' : /\[[^\]]*\]/.test(flags) ? 'maybe' : 'switch',
  };
}

describe('readFlags', () => {
  it('reads every option the CLI declares as the expressions do', () => {
    const specs = [...GLOBAL_OPTIONS, ...ALL_COMMANDS.flatMap((command) => command.options ?? [])];
    expect(specs.length).toBeGreaterThan(100);
    for (const { flags } of specs) expect(readFlags(flags), flags).toEqual(byExpressions(flags));
  });

  it('reads any flags text as the expressions do', () => {
    const text = fc.string({ unit: fc.constantFrom('-', '-', 'a', 'b', 'n', 'o', ' ', ',', '|', '<', '>', '[', ']', 'x'), maxLength: 30 });
    fc.assert(
      fc.property(text, (flags) => {
        expect(readFlags(flags)).toEqual(byExpressions(flags));
      }),
      { numRuns: 5000, seed: 44 },
    );
  });
});
