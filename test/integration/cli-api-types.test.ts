import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * Issue 12: the CLI reads API answers through the contract's types (the typed client, src/client/typed.ts, types each
 * call's `data`), so no cast on API data may come back into src/cli/.
 */
it('src/cli/ casts no API data: no `.data as …`, no hand-written response types', () => {
  const files = fs.readdirSync(path.join(ROOT, 'src/cli'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const found: string[] = [];
  for (const file of files) {
    const lines = fs.readFileSync(path.join(ROOT, 'src/cli', file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      // An event stream's message (JSON.parse of an SSE line) has no schema in the contract yet: not a response body.
      const response = line.replace(/JSON\.parse\([^)]*\)/g, '');
      if (/\bdata\)? as [A-Z{]/.test(response) || /\bas \{ (data|invoice|payment):/.test(response)) found.push(`src/cli/${file}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(files.length).toBeGreaterThan(40);
  expect(found).toEqual([]);
});
