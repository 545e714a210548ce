import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every table the CLI prints heads its columns in lower case (issue 38). test/e2e/cli-tables.test.ts
 * runs the list commands an emulator answers without options; this reads every column header the
 * CLI's sources declare, so a table only some emulators print (`svc chain list` needs `--chains`)
 * is held to the same case.
 */
const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli');
const files = fs.readdirSync(CLI, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
const headers = files.flatMap((f) => [...fs.readFileSync(path.join(CLI, f), 'utf8').matchAll(/\bheader: '([^']*)'/g)].map((m) => ({ file: f, header: m[1]! })));

describe('CLI table headers', () => {
  it('are all lower case', () => {
    expect(headers.length).toBeGreaterThan(20);
    expect(headers.filter((h) => h.header !== h.header.toLowerCase())).toEqual([]);
  });
});
