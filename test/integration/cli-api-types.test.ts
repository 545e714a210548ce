import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { API_PATH_PREFIX } from '../../src/contract/operation.js';
import { operationEntries } from '../../src/contract/operations/index.js';
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
 * and listen call operations by id (a stream's URL comes from `client.url(id)`), and the server takes
 * the API's prefix from the contract (`API_PATH_PREFIX`); a quoted path literal (`'/v1…`,
 * `"/__emulator…`, `` `/openapi…``) anywhere in src/ outside src/contract/ would be a second
 * declaration. Comments are skipped; help texts and messages that show a path to the user are not
 * quoted at their start. The dashboard's script (assets/ui.js) has its own test (dashboard-client.test.ts).
 */
const NOT_OPERATIONS: Readonly<Record<string, string>> = {
  // The dashboard's HTML page (CONTRACT §10): a page the browser loads, not an operation of the API.
  "src/server/routes/pages.ts: path: '/__emulator/ui',": 'the dashboard page',
  // The document that describes the operations is not one of them (it lists every operation, and nothing else).
  "src/server/routes/openapi.ts: path: '/openapi.json',": 'the OpenAPI document',
};

it('src/ holds no API path literal outside src/contract/ (pages and the document aside)', () => {
  const found: string[] = [];
  const files = fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const rel = `src/${file.split(path.sep).join('/')}`;
    if (rel.startsWith('src/contract/')) continue;
    fs.readFileSync(path.join(ROOT, rel), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
        if (!/['"`]\/(v1|__emulator|openapi)\b/.test(line)) return;
        if (`${rel}: ${line.trim()}` in NOT_OPERATIONS) return;
        found.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
  }
  // The walk must reach every layer, or an empty list proves nothing.
  for (const dir of ['cli/', 'client/', 'listen/', 'server/', 'webhooks/', 'store/']) expect(files.some((f) => f.startsWith(dir))).toBe(true);
  expect(found).toEqual([]);
  // Every allowlisted line still exists: a stale entry would hide nothing and mislead.
  for (const entry of Object.keys(NOT_OPERATIONS)) {
    const [file, line] = [entry.slice(0, entry.indexOf(': ')), entry.slice(entry.indexOf(': ') + 2)];
    expect(fs.readFileSync(path.join(ROOT, file), 'utf8'), entry).toContain(line);
  }
});

it('API_PATH_PREFIX is where the API lives: every operation under it is the API, every other one the control plane', () => {
  const misplaced = operationEntries()
    .filter(([, op]) => op.path.startsWith(API_PATH_PREFIX) === (op.control === true))
    .map(([id, op]) => `${id} ${op.path}`);
  expect(misplaced).toEqual([]);
});
