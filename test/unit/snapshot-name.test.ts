import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/contract/openapi/build.js';
import { SNAPSHOT_REQUESTS } from '../../src/contract/schemas/snapshots.js';
import { SNAPSHOT_NAME } from '../../src/contract/snapshot-name.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? files(full) : /\.(ts|js)$/.test(e.name) ? [full] : [];
  });
}

/** The snapshot name rule is written once (src/contract/snapshot-name.ts); the rest read it (issue 26). */
describe('snapshot name rule', () => {
  it('appears once in src/ and assets/', () => {
    const holders = [...files(path.join(ROOT, 'src')), ...files(path.join(ROOT, 'assets'))]
      .filter((f) => fs.readFileSync(f, 'utf8').includes(SNAPSHOT_NAME.source))
      .map((f) => path.relative(ROOT, f).split(path.sep).join('/'));
    expect(holders).toEqual(['src/contract/snapshot-name.ts']);
  });

  it('the request schema and the OpenAPI path parameter say the same rule', () => {
    const schema = SNAPSHOT_REQUESTS.SaveSnapshotRequest();
    for (const name of ['a', 'snap-1.v2_x', 'A'.repeat(64)]) expect(schema.safeParse({ name }).success, name).toBe(true);
    for (const name of ['', '.hidden', '-x', 'a/b', 'a b', 'A'.repeat(65)]) expect(schema.safeParse({ name }).success, name).toBe(false);

    const doc = JSON.stringify(buildOpenApi('0.0.0'));
    const patterns = [...doc.matchAll(/"name":"name","in":"path","required":true,"schema":\{"type":"string","pattern":"((?:[^"\\]|\\.)*)"/g)].map((m) =>
      JSON.parse(`"${m[1]}"`),
    );
    expect(patterns.length).toBeGreaterThan(0);
    expect(new Set(patterns)).toEqual(new Set([SNAPSHOT_NAME.source]));
  });
});
