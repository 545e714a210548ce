/**
 * Issue 26: a type assertion (`x as T`, `<T>x`) tells the compiler to stop checking, so data from
 * outside (API bodies, options, store rows, `JSON.parse`, caught errors) must be parsed or narrowed
 * instead. This test counts the assertions in src/ with the compiler's own parser (comments and
 * strings cannot fool it) and fails when a file holds more than the list below allows. `as const`
 * and `satisfies` are not assertions and are not counted.
 *
 * Shrink the list as casts go; a new entry needs a reason a reviewer can check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** File (relative to src/) → [casts allowed, why]. */
const ALLOWED: Record<string, [number, string]> = {
  'client/throwing.ts': [1, 'one method per operation id, assembled in a loop over the contract: the compiler cannot map the loop to the mapped type'],
  'client/typed.ts': [1, 'one method per operation id, assembled in a loop over the contract: the compiler cannot map the loop to the mapped type'],
  'contract/schemas/events.ts': [
    1,
    "tokenSchema<K>: its three branches are TokenSchema<K>'s three members, but the compiler cannot narrow a type parameter by a value; SchemaMatchesWebhookEvent fails to compile if they drift",
  ],
  'contract/schemas/lazy.ts': [
    2,
    "lazyRecord: each property is a getter made by Object.defineProperty, which the compiler cannot follow; each one returns its own thunk's result (Built<T>)",
  ],
  'server/presenters.ts': [1, 'presentInvoiceJson: the Json<T> brand is made only there (the splice is held to presentInvoice byte for byte by a unit test)'],
  'store/db.ts': [1, 'bindRepositories: one bound function per repository function, assembled in a loop: the compiler cannot map the loop to the mapped type'],
  'store/sqlite/group-commit.ts': [1, "one queue holds transactions of every result type; each resolve gets its own fn's result"],
  'store/postgres/tenant-cache.ts': [
    5,
    'withTenantCache: one wrapped function per repository function, assembled in a loop (as bindRepositories); the cache holds each read under its own key, so a hit is the type its load returned',
  ],
  'store/query.ts': [1, 'param(): a placeholder string typed as the column it stands for, so builders type-check'],
  'store/sqlite.ts': [1, "require() of the CommonJS driver is untyped; its type is the package's own"],
  'store/sqlite/store.ts': [1, "better-sqlite3's transaction wrapper loses a generic function's return type"],
  'webhooks/signature.ts': [1, 'verifyWebhook: the signature proves the body came from the service; a schema check would refuse its future fields'],
};

type Cast = { file: string; line: number; text: string };

function castsIn(file: string): Cast[] {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Cast[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const isConst = ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === 'const';
      if (!isConst) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push({ file, line, text: node.getText(source).replace(/\s+/g, ' ').slice(0, 120) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('type assertions in src/', () => {
  const files = fs
    .readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .map((f) => f.replace(/\\/g, '/'))
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const casts = files.flatMap(castsIn);

  it('are counted by the parser: `as const` and `satisfies` are not, `as T` and `<T>x` are', () => {
    const probe = ts.createSourceFile(
      'probe.ts',
      'const a = [1] as const; const b = {} satisfies object; const c = x as number; const d = <string>y;',
      ts.ScriptTarget.Latest,
      true,
    );
    let counted = 0;
    const visit = (node: ts.Node): void => {
      if (
        (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) &&
        !(ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(probe) === 'const')
      )
        counted++;
      ts.forEachChild(node, visit);
    };
    visit(probe);
    expect(counted).toBe(2);
  });

  it('stay within the allowed list, file by file', () => {
    const total = casts.length;
    const allowedTotal = Object.values(ALLOWED).reduce((sum, [n]) => sum + n, 0);
    console.log(`type assertions in src/: ${total} (allowed: ${allowedTotal})`);
    const over: string[] = [];
    for (const file of files) {
      const mine = casts.filter((c) => c.file === file);
      const allowed = ALLOWED[file]?.[0] ?? 0;
      if (mine.length > allowed) over.push(`${file}: ${mine.length} casts, ${allowed} allowed\n${mine.map((c) => `  ${c.line}: ${c.text}`).join('\n')}`);
    }
    expect(over, "parse the value (the contract's schemas, a row mapper) or narrow it (src/domain/caught.ts) instead of casting").toEqual([]);
  });

  it('lists no file that is gone or holds fewer casts than allowed (shrink the list as casts go)', () => {
    const stale = Object.entries(ALLOWED)
      .filter(([file, [n]]) => casts.filter((c) => c.file === file).length < n)
      .map(([file, [n]]) => `${file}: ${n} allowed, ${casts.filter((c) => c.file === file).length} found`);
    expect(stale).toEqual([]);
  });
});
