import { type Compilable, CompiledQuery, type Kysely } from 'kysely';

/**
 * Writes whose result nobody reads (an invoice's insert, its event's, a delivery's, an invoice's new
 * state, a batch of attempt results), sent later in the same transaction with the statement after them, as data-modifying CTEs
 * of that statement: a create's invoice, event and idempotency record go in one round trip instead
 * of three (issue 27: a round trip, not the SQL, is what a statement costs; docs/performance.md).
 *
 * The repository marks such a write (deferWrite); the connection (named-statements.ts) keeps it
 * until the next statement, then:
 * - a statement that touches none of the tables the kept writes touch carries them: `WITH d0 AS
 *   (write), d1 AS (write) <statement>`. It cannot see their rows (one statement, one snapshot),
 *   which is why it must not touch their tables;
 * - any other statement (one that does, a COMMIT, a SAVEPOINT, …) goes after them: the kept writes
 *   first, in one statement of their own;
 * - a ROLLBACK drops them.
 * A write that touches a table a kept write touches sends the kept ones first, for the same reason.
 * Outside a transaction a write runs at once. A kept write that fails fails the statement that
 * carried it, and with it the transaction, as it would have failed it on its own.
 */
export const DEFERRED = '/* svc:deferred */ ';

/** Runs `query` as a deferred write on `db`'s transaction (see above), or at once outside one. */
export async function deferWrite(db: Pick<Kysely<unknown>, 'isTransaction' | 'executeQuery'>, query: Compilable | CompiledQuery): Promise<void> {
  const compiled = 'compile' in query ? query.compile() : query;
  if (!db.isTransaction) {
    await db.executeQuery(compiled);
    return;
  }
  await db.executeQuery(CompiledQuery.raw(DEFERRED + compiled.sql, [...compiled.parameters]));
}

export interface KeptWrite {
  text: string;
  values: unknown[];
  tables: ReadonlySet<string>;
}

/** Texts already read by tablesOf: svc's statements are a fixed set, read on every kept write. Bounded. */
const tablesByText = new Map<string, ReadonlySet<string>>();
const MAX_REMEMBERED = 1024;

/** The tables a statement names after FROM, INTO, UPDATE or JOIN (kysely quotes them; raw SQL may not). */
export function tablesOf(text: string): ReadonlySet<string> {
  const known = tablesByText.get(text);
  if (known) return known;
  const tables = new Set<string>();
  for (const match of text.matchAll(/\b(?:from|into|update|join)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/gi)) tables.add(match[1]!.toLowerCase());
  if (tablesByText.size < MAX_REMEMBERED) tablesByText.set(text, tables);
  return tables;
}

export function touchesAny(writes: readonly KeptWrite[], tables: ReadonlySet<string>): boolean {
  return writes.some((w) => [...tables].some((t) => w.tables.has(t)));
}

/** A statement that may carry writes as CTEs: a plain SELECT, INSERT, UPDATE or DELETE, or one that starts WITH (not RECURSIVE). */
const CARRIER = /^\s*(?:select|insert|update|delete|with(?!\s+recursive\b))\b/i;
const LEADING_WITH = /^\s*with\s+/i;

export function mayCarry(text: string): boolean {
  return CARRIER.test(text);
}

/**
 * `statement` (numbered $1..$n) carrying `writes` as CTEs named d0, d1, …: the writes' parameters
 * are renumbered after the statement's. The writes are kysely's compiled inserts and updates, whose
 * only `$` signs are their parameters.
 */
export function carrying(writes: readonly KeptWrite[], statement: string, values: readonly unknown[]): { text: string; values: unknown[] } {
  const all = [...values];
  const ctes = writes.map((w, i) => {
    const offset = all.length;
    all.push(...w.values);
    return `d${i} AS (${w.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`;
  });
  const text = LEADING_WITH.test(statement) ? statement.replace(LEADING_WITH, `WITH ${ctes.join(', ')}, `) : `WITH ${ctes.join(', ')} ${statement}`;
  return { text, values: all };
}

/** The writes in one statement of their own. */
export function alone(writes: readonly KeptWrite[]): { text: string; values: unknown[] } {
  const only = writes.length === 1 ? writes[0] : undefined;
  return only ? { text: only.text, values: only.values } : carrying(writes, 'SELECT 1', []);
}
