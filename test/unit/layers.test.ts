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

/**
 * The store's engines are one seam (issue 39, ARCHITECTURE habit 14): an engine is chosen where the
 * store opens, and its folder builds the kit the rest uses (src/store/kit.ts). Above the store,
 * server/ and webhooks/ never import an engine's folder (PostgreSQL's: its kit brings it) nor ask
 * which engine they run on.
 */
const ENGINE_BLIND = ['server/', 'webhooks/'];
const ENGINE_TEST = /\.kind\s*[!=]==?\s*['"](?:postgres|sqlite)['"]|['"](?:postgres|sqlite)['"]\s*[!=]==?\s*\S*\.kind\b/;

/** Where a file of server/ or webhooks/ imports store/postgres/ or tests the engine's kind. */
function engineQuestions(files: { file: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    if (!ENGINE_BLIND.some((p) => file.startsWith(p))) continue;
    for (const target of importsOf(file, text)) if (target.startsWith('store/postgres/')) found.push(`src/${file} imports src/${target}`);
    text.split('\n').forEach((line, i) => {
      if (ENGINE_TEST.test(line)) found.push(`src/${file}:${i + 1} asks which engine: ${line.trim()}`);
    });
  }
  return found;
}

describe('layers', () => {
  const files = sourceFiles(SRC).map((file) => ({ file, text: fs.readFileSync(path.join(SRC, file), 'utf8') }));

  it('no module in src/ imports from a higher floor', () => {
    expect(upwardImports(files)).toEqual([]);
  });

  it('server/ and webhooks/ neither import store/postgres/ nor test the engine', () => {
    expect(engineQuestions(files)).toEqual([]);
  });

  it('catches each way of asking which engine', () => {
    const asking = [
      "import { isDatabaseUnavailable } from '../store/postgres/unavailable.js';",
      "import type { PostgresStoreDb } from '../store/postgres/engine.js';",
      "const m = await import('../store/postgres/open.js');",
      "if (db.kind === 'postgres') return;",
      'if (deps.db.kind !== "sqlite") return;',
      "const shared = 'postgres' === db.kind;",
    ];
    for (const text of asking) expect(engineQuestions([{ file: 'server/x.ts', text }]), text).toHaveLength(1);
    expect(engineQuestions([{ file: 'webhooks/deep/y.ts', text: "import '../../store/postgres/notify.js';" }])).toHaveLength(1);
    // Below the seam, and what is not an engine, are not its business.
    expect(engineQuestions([{ file: 'store/open.ts', text: "const { openPostgresKit } = await import('./postgres/kit.js');" }])).toEqual([]);
    expect(engineQuestions([{ file: 'server/auth.ts', text: "if (principal.kind === 'partner') return;\nimport { x } from '../store/kit.js';" }])).toEqual([]);
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
