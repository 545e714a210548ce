import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliReference, REFERENCE_COMMAND, REFERENCE_END, REFERENCE_START } from '../../src/cli/reference.js';
import { ROOT } from '../helpers/cli.js';

/** docs/cli.md's command reference is generated from the command specs; it must match them exactly. */
describe('docs/cli.md command reference', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');

  it('is what the command definitions generate (no drift)', () => {
    const start = doc.indexOf(REFERENCE_START);
    const end = doc.indexOf(REFERENCE_END);
    expect(start, `docs/cli.md needs the ${REFERENCE_START} marker`).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const current = doc.slice(start, end + REFERENCE_END.length);
    const generated = cliReference();
    if (current !== generated) {
      const a = current.split('\n');
      const b = generated.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      expect.fail(
        `docs/cli.md's command reference is out of date: run \`${REFERENCE_COMMAND}\` to regenerate it.\n` +
          `First difference, line ${line + 1} of the section:\n  docs/cli.md: ${a[line]}\n  generated:   ${b[line]}`,
      );
    }
  });
});
