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

/** Files not yet worked through (issue 26's other slices); each count is the one found on 2026-11-26. */
const PENDING = 'not reviewed yet (issue 26)';

/** File (relative to src/) → [casts allowed, why]. */
const ALLOWED: Record<string, [number, string]> = {
  'server/pipeline/handler.ts': [2, PENDING],
  'store/postgres/connect.ts': [2, PENDING],
  'cli/output/style.ts': [
    1,
    "the colourless chalk is a Proxy over one function; chalk's ChalkInstance type names every style chain, which a Proxy cannot declare",
  ],
  'client/throwing.ts': [1, 'one method per operation id, assembled in a loop over the contract: the compiler cannot map the loop to the mapped type'],
  'client/typed.ts': [1, 'one method per operation id, assembled in a loop over the contract: the compiler cannot map the loop to the mapped type'],
  'contract/openapi/build.ts': [5, PENDING],
  'contract/openapi/errors.ts': [1, PENDING],
  'contract/openapi/json-schema.ts': [4, PENDING],
  'contract/operations/index.ts': [1, PENDING],
  'contract/schemas/events.ts': [1, PENDING],
  'contract/schemas/lazy.ts': [2, PENDING],
  'server/control/dashboard-handlers.ts': [
    1,
    'stored envelopes (svc signed and sent them) read back; parsing needs zod, loaded only for validated routes (server/ slice)',
  ],
  'server/faults/answer.ts': [1, PENDING],
  'server/faults/control.ts': [1, PENDING],
  'server/handler.ts': [2, PENDING],
  'server/http/body.ts': [2, PENDING],
  'server/http/client-error.ts': [2, PENDING],
  'server/http/fields.ts': [2, PENDING],
  'server/journal/mask.ts': [1, PENDING],
  'server/pages/checkout-state.ts': [1, PENDING],
  'server/presenters.ts': [8, PENDING],
  'server/response-observer.ts': [2, PENDING],
  'server/scheduler.ts': [1, PENDING],
  'server/snapshots/untrusted.ts': [4, PENDING],
  'server/start.ts': [1, PENDING],
  'server/validation/parse.ts': [1, PENDING],
  'store/group-commit.ts': [1, "one queue holds transactions of every result type; each resolve gets its own fn's result"],
  'store/query.ts': [1, 'param(): a placeholder string typed as the column it stands for, so builders type-check'],
  'store/repos/meta.ts': [1, 'getMeta<T>: callers in server/ name the type; move them to a guard (issue 26, server/ slice)'],
  'store/sqlite.ts': [1, "require() of the CommonJS driver is untyped; its type is the package's own"],
  'store/store.ts': [1, "better-sqlite3's transaction wrapper loses a generic function's return type"],
  'webhooks/envelope.ts': [
    1,
    'the state machine keeps type, status and token together, which the compiler cannot follow (checked on every delivery in integration)',
  ],
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
