/**
 * docs/fidelity.md's table of checks is the check list itself (src/fidelity/verify/checks/): every
 * check, in order, with its id, section and title, and nothing else. A check added, renamed or
 * reworded without the doc fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/fidelity/verify/checks/index.js';
import { ROOT } from '../helpers/cli.js';

function tableRows(): string[][] {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'fidelity.md'), 'utf8');
  const start = doc.indexOf('<!-- fidelity-checks:start -->');
  const end = doc.indexOf('<!-- fidelity-checks:end -->');
  expect(start).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  return doc
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replaceAll('\\|', '|')),
    );
}

describe('docs/fidelity.md', () => {
  it('lists every check, in order, with its id, CONTRACT section and title', () => {
    expect(tableRows()).toEqual(CHECKS.map((c) => [`\`${c.id}\``, c.section, c.title]));
  });
});
