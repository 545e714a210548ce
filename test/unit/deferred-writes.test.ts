import { describe, expect, it } from 'vitest';
import { alone, carrying, type KeptWrite, mayCarry, tablesOf, touchesAny } from '../../src/store/postgres/deferred-writes.js';

const write = (text: string, values: unknown[]): KeptWrite => ({ text, values, tables: tablesOf(text) });
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
