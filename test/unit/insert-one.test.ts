import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { insertOne } from '../../src/store/postgres/repos/insert-one.js';
import type { Database } from '../../src/store/schema.js';

// The PostgreSQL repositories' inserts skip kysely's builder (store/postgres/repos/insert-one.ts):
// the text and parameters must stay what kysely compiles, which deferred-writes.ts reads.
const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe('insertOne', () => {
  it("compiles kysely's text and parameters, byte for byte, leaving undefined columns out", () => {
    const event = {
      id: 'evt_1',
      invoice_id: 'inv_1',
      sequence: 1,
      type: 'invoice.created',
      environment: 'test',
      partner_id: 'p',
      merchant_id: 'm',
      payload: '{"a":1}',
      created_at: 5,
    } as const;
    const payment = {
      id: 'pay_1',
      invoice_id: 'inv_1',
      network_id: 1,
      token: 'USDT',
      amount: '1.5',
      tx_hash: '0xab',
      confirmed: 0,
      created_at: 7,
      confirmed_at: undefined,
    };
    for (const [table, row] of [
      ['events', event],
      ['payments', payment],
    ] as const) {
      const ours = insertOne(table, row);
      const theirs = db.insertInto(table).values(row).compile();
      expect(ours.sql).toBe(theirs.sql);
      expect(ours.parameters).toEqual(theirs.parameters);
    }
    expect(insertOne('payments', payment).sql).not.toContain('confirmed_at');
  });

  it('a text per table and columns: another column set gets its own', () => {
    const a = insertOne('partners', { id: 'p1', name: 'A', created_at: 1 });
    const b = insertOne('partners', { id: 'p2', created_at: 2, name: 'B' });
    expect(a.sql).toBe('insert into "partners" ("id", "name", "created_at") values ($1, $2, $3)');
    expect(b.sql).toBe('insert into "partners" ("id", "created_at", "name") values ($1, $2, $3)');
    expect(b.parameters).toEqual(['p2', 2, 'B']);
  });
});
