import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The house has floors (issue 26): a module may import from its own floor or a lower one, never from
 * a higher one. The contract and the pure rules are the bottom, so the server, the client and the CLI
 * all stand on the same declarations, and a lower module never has to load a higher one to work.
 * The table is the one place the floors are written; the first matching prefix decides.
 */
const FLOORS: readonly (readonly [floor: number, name: string, prefixes: readonly string[]])[] = [
  [0, 'contract, domain (pure)', ['contract/', 'domain/', 'errors.ts']],
  [1, 'store, clock, config, process helpers', ['store/', 'clock/', 'config/', 'pid.ts', 'package-root.ts', 'version.ts', 'runtime.ts']],
  [2, 'webhooks, tunnel, local chains', ['webhooks/', 'tunnel/', 'chains/']],
  [3, 'server, listen, client, fidelity', ['server/', 'listen/', 'client/', 'fidelity/']],
  [4, 'cli', ['cli/']],
  // The package's API (src/index.ts) composes the server, the client and the clock: an entry point.
  [5, 'entry points', ['entry/', 'index.ts']],
];

/** Documented exceptions, `from -> to` (paths under src/). Keep it short; say why beside each. */
const ALLOWED: readonly string[] = [];

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function floorOf(file: string): { floor: number; name: string } {
  for (const [floor, name, prefixes] of FLOORS) {
    if (prefixes.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p))) return { floor, name };
  }
  throw new Error(`src/${file} is on no floor: add its folder to FLOORS in test/unit/layers.test.ts`);
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

/** Static `import … from`, `export … from`, side-effect `import '…'` and `import('…')` (also `typeof import('…')`). */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** The relative imports of one file, resolved to paths under src/ (`.js` specifiers name `.ts` files). */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1]!;
    if (!spec.startsWith('.')) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts');
    out.push(target);
  }
  return out;
}

/** Every import that climbs: `from (floor) -> to (floor)`. */
function upwardImports(files: { file: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    const from = floorOf(file);
    for (const target of importsOf(file, text)) {
      const to = floorOf(target);
      if (to.floor > from.floor && !ALLOWED.includes(`${file} -> ${target}`)) found.push(`src/${file} (${from.name}) -> src/${target} (${to.name})`);
    }
  }
  return found;
}

describe('layers', () => {
  const files = sourceFiles(SRC).map((file) => ({ file, text: fs.readFileSync(path.join(SRC, file), 'utf8') }));

  it('no module in src/ imports from a higher floor', () => {
    expect(upwardImports(files)).toEqual([]);
  });

  it('every file of src/ is on a floor, and the scan sees its imports', () => {
    for (const { file } of files) floorOf(file);
    // The scan must find something, or an empty list above proves nothing.
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((f) => importsOf(f.file, f.text)).length).toBeGreaterThan(500);
  });

  it('catches each form of import that climbs', () => {
    const climbing = [
      "import { didYouMean } from '../cli/suggest.js';",
      "import type { X } from '../server/events.js';",
      "export { Y } from '../server/events.js';",
      "export type {\n  Z,\n} from '../server/events.js';",
      "const m = await import('../server/events.js');",
      "type M = typeof import('../cli/main.js');",
      "import '../server/start.js';",
    ];
    for (const text of climbing) expect(upwardImports([{ file: 'domain/x.ts', text }]), text).toHaveLength(1);
    expect(upwardImports([{ file: 'cli/x.ts', text: "import { a } from '../domain/money.js';\nimport b from 'zod';" }])).toEqual([]);
  });
});
