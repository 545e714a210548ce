/**
 * The build compiles the statements of src/store/repos/ and SQLite's own claims (src/store/sqlite/claims.ts;
 * scripts/build.mjs gives each its key there):
 * a statement declared anywhere else would have no key, and dist/ would fail on its first use with
 * "was not compiled at build time", while every test of the sources passed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const DECLARATION = /\bprepared(?:ByShape)?(?:<[^>()]*>)?\(/;

describe('store statements', () => {
  it('are declared only in modules of src/store/repos/ (and sqlite/claims.ts), which the build compiles', () => {
    const files = fs
      .readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\\/g, '/'));
    const declaring = files.filter((f) => f !== 'store/query.ts' && DECLARATION.test(fs.readFileSync(path.join(SRC, f), 'utf8')));
    expect(declaring.length).toBeGreaterThan(5);
    expect(declaring.filter((f) => !/^store\/repos\/[^/]+\.ts$/.test(f) && f !== 'store/sqlite/claims.ts')).toEqual([]);
  });
});
