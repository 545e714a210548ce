import { describe, expect, it } from 'vitest';
import { alone, carrying, type KeptWrite, keptWrite, mayCarry, merged, tablesOf, touchesAny } from '../../src/store/postgres/deferred-writes.js';

const write = (text: string, values: unknown[], row: string | null = null): KeptWrite => ({ text, values, tables: tablesOf(text), row });
/** Whether a deferred write `w` must wait for the kept `writes`: the connection's question. */
const follows = (writes: KeptWrite[], w: KeptWrite) => touchesAny(writes, w.tables, w.row);
const invoice = write('insert into "invoices" ("id", "amount") values ($1, $2)', ['i1', '25.00']);
const event = write('insert into "events" ("id", "invoice_id") values ($1, $2)', ['e1', 'i1']);

describe('deferred writes: the SQL a connection sends', () => {
  it('names the tables a statement touches, quoted by kysely or not', () => {
    expect(tablesOf('select * from "invoices" where "id" = $1 for update')).toEqual(new Set(['invoices']));
    expect(tablesOf('update "invoices" set "status" = $1 where "id" in (select "invoice_id" from "payments")')).toEqual(new Set(['invoices', 'payments']));
    expect(tablesOf('DELETE FROM request_journal WHERE seq < 5')).toEqual(new Set(['request_journal']));
    expect(tablesOf('select * from "deliveries" inner join "events" on "events"."id" = "deliveries"."event_id"')).toEqual(new Set(['deliveries', 'events']));
    expect(touchesAny([invoice, event], tablesOf('select * from "invoices" where "id" = $1'))).toBe(true);
    expect(touchesAny([invoice, event], tablesOf('insert into "idempotency_keys" ("scope") values ($1)'))).toBe(false);
  });

  it('carries writes as CTEs, their parameters numbered after the statement’s', () => {
    const { text, values } = carrying([invoice, event], 'insert into "idempotency_keys" ("scope", "status") values ($1, $2)', ['s', 201]);
    expect(text).toBe(
      'WITH d0 AS (insert into "invoices" ("id", "amount") values ($3, $4)), d1 AS (insert into "events" ("id", "invoice_id") values ($5, $6)) insert into "idempotency_keys" ("scope", "status") values ($1, $2)',
    );
    expect(values).toEqual(['s', 201, 'i1', '25.00', 'e1', 'i1']);
    // A statement with CTEs of its own keeps them, after the writes.
    expect(carrying([event], 'with "x" as (select $1 as "v") select * from "x"', [7]).text).toBe(
      'WITH d0 AS (insert into "events" ("id", "invoice_id") values ($2, $3)), "x" as (select $1 as "v") select * from "x"',
    );
    // Ten and more parameters are renumbered whole ($10 is not $1 followed by 0).
    const wide = write(
      `insert into "t" values (${Array.from({ length: 11 }, (_, i) => `$${i + 1}`).join(', ')})`,
      Array.from({ length: 11 }, (_, i) => i),
    );
    expect(carrying([wide], 'select $1', ['a']).text).toBe(
      `WITH d0 AS (insert into "t" values (${Array.from({ length: 11 }, (_, i) => `$${i + 2}`).join(', ')})) select $1`,
    );
  });

  it('sends writes alone as the statement itself, or several under SELECT 1', () => {
    expect(alone([invoice])).toEqual({ text: invoice.text, values: invoice.values });
    expect(alone([invoice, event]).text).toMatch(/^WITH d0 AS \(insert into "invoices".*\), d1 AS \(insert into "events".*\) SELECT 1$/);
  });

  it('lets a write of another named row of the same table wait with the others, and no other', () => {
    const event2 = write('insert into "events" ("id", "invoice_id") values ($1, $2)', ['e2', 'i2'], 'e2');
    const named = [write(event.text, event.values, 'e1'), write('update "invoices" set "status" = $1 where "id" = $2', ['EXPIRED', 'i1'], 'i1')];
    expect(follows(named, event2)).toBe(false);
    expect(follows(named, write('update "invoices" set "status" = $1 where "id" = $2', ['EXPIRED', 'i2'], 'i2'))).toBe(false);
    // The same row again, a write that names none, or a kept write that names none: sent after.
    expect(follows(named, write('update "invoices" set "status" = $1 where "id" = $2', ['PAID', 'i1'], 'i1'))).toBe(true);
    expect(follows(named, write('update "invoices" set "status" = $1 where "status" = $2', ['EXPIRED', 'CREATED']))).toBe(true);
    expect(follows([event], event2)).toBe(true);
    // Another table: never.
    expect(follows([event], write('insert into "deliveries" ("id") values ($1)', ['d1']))).toBe(false);
  });

  it('reads the row a deferred write names from its marker, and keeps it out of the prepared text', () => {
    const kept = keptWrite('/* row e-1:x.2 */ insert into "events" ("id") values ($1)', ['e-1']);
    expect(kept).toEqual({ text: 'insert into "events" ("id") values ($1)', values: ['e-1'], tables: new Set(['events']), row: 'e-1:x.2' });
    expect(keptWrite('insert into "events" ("id") values ($1)', ['e1']).row).toBeNull();
  });

  it('makes single-row inserts of one text one insert of their rows, in the order written', () => {
    // PostgreSQL runs CTEs last to first: as CTEs, e2 would take a smaller seq than e1.
    const e = (id: string) => write('insert into "events" ("id", "invoice_id") values ($1, $2)', [id, `i-${id}`], id);
    const update = write('update "invoices" set "status" = $1 where "id" = $2', ['EXPIRED', 'i1'], 'i1');
    const out = merged([e('e1'), update, e('e2'), e('e3')]);
    expect(out.map((w) => w.text)).toEqual(['insert into "events" ("id", "invoice_id") values ($1, $2), ($3, $4), ($5, $6)', update.text]);
    expect(out[0]!.values).toEqual(['e1', 'i-e1', 'e2', 'i-e2', 'e3', 'i-e3']);
    // The writes given are left as they were: merging builds new ones.
    const given = [e('e1'), e('e2')];
    merged(given);
    expect(given.map((w) => [w.text, w.values])).toEqual([
      ['insert into "events" ("id", "invoice_id") values ($1, $2)', ['e1', 'i-e1']],
      ['insert into "events" ("id", "invoice_id") values ($1, $2)', ['e2', 'i-e2']],
    ]);
    expect(alone([e('e1'), e('e2')])).toEqual({
      text: 'insert into "events" ("id", "invoice_id") values ($1, $2), ($3, $4)',
      values: ['e1', 'i-e1', 'e2', 'i-e2'],
    });
    // Not an insert of one plain row (a function in a value, a RETURNING): left as it is.
    const odd = write('insert into "events" ("id", "at") values ($1, now())', ['e9'], 'e9');
    expect(merged([odd, { ...odd, values: ['e10'], row: 'e10' }])).toHaveLength(2);
  });

  it('lets only plain statements carry writes', () => {
    for (const text of ['select 1', 'INSERT into "x" values ($1)', 'update "x" set "a" = $1', ' delete from "x"', 'with "a" as (select 1) select * from "a"'])
      expect(mayCarry(text)).toBe(true);
    for (const text of [
      'commit',
      'BEGIN; SELECT pg_advisory_xact_lock_shared(1)',
      'savepoint "sp"',
      'with recursive "a" as (select 1) select 1',
      'SET LOCAL lock_timeout = 1000',
    ])
      expect(mayCarry(text)).toBe(false);
  });
});
