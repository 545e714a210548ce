import { CompiledQuery, type Insertable } from 'kysely';
import type { Database } from '../../schema.js';

/**
 * kysely's insert of one row, compiled without building it: the same text kysely compiles (`insert
 * into "t" ("a", "b") values ($1, $2)`, the columns in the row's order, those holding undefined left
 * out) and the same parameters, the text made once per table and columns. Building and compiling
 * an insert of an invoice's 15 columns costs kysely ~10 µs, on every create's invoice, event and
 * delivery (issue 27: the emulator's CPU is what bounds #18 on PostgreSQL). deferred-writes.ts reads
 * this text (ONE_ROW_INSERT); test/unit/insert-one.test.ts holds it to kysely's, byte for byte.
 */
export function insertOne<T extends keyof Database & string>(table: T, row: Insertable<Database[T]>): CompiledQuery {
  const columns: string[] = [];
  const values: unknown[] = [];
  for (const [column, value] of Object.entries(row)) {
    if (value === undefined) continue;
    columns.push(column);
    values.push(value);
  }
  const key = `${table}\0${columns.join('\0')}`;
  let text = texts.get(key);
  if (text === undefined) {
    text = `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values (${values.map((_, i) => `$${i + 1}`).join(', ')})`;
    if (texts.size < MAX_TEXTS) texts.set(key, text);
  }
  return CompiledQuery.raw(text, values);
}

/** Texts by table and columns: a handful in practice (a row type's optional columns vary a little). Bounded. */
const texts = new Map<string, string>();
const MAX_TEXTS = 256;

/** As kysely's PostgreSQL compiler quotes an identifier. */
const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
