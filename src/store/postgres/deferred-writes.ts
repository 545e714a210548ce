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
 * A write that touches a table a kept write touches sends the kept ones first, for the same reason,
 * unless both name the one row they write and the rows differ (`row`: an insert of a new id, an
 * update by primary key): an expiry's batch of 200 invoices, each an event and a new state, then
 * needs a few statements instead of one per invoice. At most MAX_KEPT wait at once.
 * Outside a transaction a write runs at once. A kept write that fails fails the statement that
 * carried it, and with it the transaction, as it would have failed it on its own.
 */
export const DEFERRED = '/* svc:deferred */ ';

/** The row a deferred write names, between DEFERRED and its SQL (not in the text that is prepared). */
const ROW = /^\/\* row ([\w:.-]+) \*\/ /;

/** Kept writes sent in one statement at most: its size, and its parameters (≤ 65,535), stay bounded. */
export const MAX_KEPT = 64;

/**
 * Runs `query` as a deferred write on `db`'s transaction (see above), or at once outside one. `row`:
 * the one row it writes, by primary key (a write of several rows, or of rows found by a condition,
 * names none).
 */
export async function deferWrite(db: Pick<Kysely<unknown>, 'isTransaction' | 'executeQuery'>, query: Compilable | CompiledQuery, row?: string): Promise<void> {
  const compiled = 'compile' in query ? query.compile() : query;
  if (!db.isTransaction) {
    await db.executeQuery(compiled);
    return;
  }
  const named = row !== undefined && /^[\w:.-]+$/.test(row) ? `/* row ${row} */ ` : '';
  await db.executeQuery(CompiledQuery.raw(DEFERRED + named + compiled.sql, [...compiled.parameters]));
}

export interface KeptWrite {
  text: string;
  values: unknown[];
  tables: ReadonlySet<string>;
  /** The one row it writes, or null (deferWrite's `row`). */
  row: string | null;
}

/** A deferred write as the connection received it (after DEFERRED): its SQL and the row it names. */
export function keptWrite(statement: string, values: unknown[]): KeptWrite {
  const named = ROW.exec(statement);
  const text = named ? statement.slice(named[0].length) : statement;
  return { text, values, tables: tablesOf(text), row: named ? named[1]! : null };
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

/**
 * Whether a statement on `tables` must wait until the kept `writes` were sent: it shares a table with
 * one, and not as a write of another named `row` (a read names none).
 */
export function touchesAny(writes: readonly KeptWrite[], tables: ReadonlySet<string>, row: string | null = null): boolean {
  return writes.some((w) => [...tables].some((t) => w.tables.has(t)) && !(row && w.row && row !== w.row));
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
  const ctes = merged(writes).map((w, i) => {
    const offset = all.length;
    all.push(...w.values);
    return `d${i} AS (${renumbered(w.text, offset)})`;
  });
  const text = LEADING_WITH.test(statement) ? statement.replace(LEADING_WITH, `WITH ${ctes.join(', ')}, `) : `WITH ${ctes.join(', ')} ${statement}`;
  return { text, values: all };
}

/**
 * `text` with each parameter `$n` numbered `$(n + offset)`. Remembered (bounded): svc's statements
 * are a fixed set at a few offsets, and the replacement's callback per parameter, ~25 of them for a
 * create's invoice and event, showed in a profile of #18.
 */
function renumbered(text: string, offset: number): string {
  if (offset === 0) return text;
  const key = `${offset}\0${text}`;
  let done = renumberedTexts.get(key);
  if (done === undefined) {
    done = text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    if (renumberedTexts.size < MAX_REMEMBERED) renumberedTexts.set(key, done);
  }
  return done;
}
const renumberedTexts = new Map<string, string>();

/** The writes in one statement of their own. */
export function alone(writes: readonly KeptWrite[]): { text: string; values: unknown[] } {
  const all = merged(writes);
  const only = all.length === 1 ? all[0] : undefined;
  return only ? { text: only.text, values: only.values } : carrying(all, 'SELECT 1', []);
}

/** kysely's insert of one row: `insert into "t" ("a", "b") values ($1, $2)`, its tuple last. */
const ONE_ROW_INSERT = /^(insert into "\w+" \([^()]*\) values )(\([^()]*\))$/;

/**
 * The writes with single-row inserts of the same text made one insert of their rows, in their order.
 * PostgreSQL runs a statement's data-modifying CTEs last to first (measured: three inserts as d0, d1,
 * d2 took their serials c, b, a), and `seq` orders events and deliveries: two events of one invoice,
 * or two invoices' deliveries, must keep the order they were written in. One insert's rows take
 * their serials in the order of its VALUES. Tables apart, order does not matter (a foreign key is
 * checked when the whole statement ends).
 */
export function merged(writes: readonly KeptWrite[]): readonly KeptWrite[] {
  // Most statements carry writes of different texts (a create's invoice and event): nothing to merge,
  // and no pattern to run over each text (it showed in a profile of #20's function).
  if (new Set(writes.map((w) => w.text)).size === writes.length) return writes;
  const out: KeptWrite[] = [];
  const byText = new Map<string, KeptWrite>();
  for (const w of writes) {
    const insert = ONE_ROW_INSERT.exec(w.text);
    const into = insert ? byText.get(w.text) : undefined;
    if (!insert || !into) {
      const copy = { ...w, values: [...w.values] };
      if (insert) byText.set(w.text, copy);
      out.push(copy);
      continue;
    }
    const offset = into.values.length;
    into.text += `, ${renumbered(insert[2]!, offset)}`;
    into.values.push(...w.values);
  }
  return out;
}
