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

/**
 * Issue 26: the contract's operations are the only place an API path is written. The CLI, the client
 * and listen call operations by id (a stream's URL comes from `client.url(id)`); a quoted path literal
 * (`'/v1…`, `"/__emulator…`, `` `/openapi…``) in their code would be a second declaration. Comments are
 * skipped; help texts and messages that show a path to the user are not quoted at their start.
 */
it('src/cli/, src/client/ and src/listen/ hold no API path literal', () => {
  const found: string[] = [];
  for (const dir of ['src/cli', 'src/client', 'src/listen']) {
    const files = fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const file of files) {
      fs.readFileSync(path.join(ROOT, dir, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
          if (/['"`]\/(v1|__emulator|openapi)\b/.test(line)) found.push(`${dir}/${file}:${i + 1}: ${line.trim()}`);
        });
    }
  }
  expect(found).toEqual([]);
});
