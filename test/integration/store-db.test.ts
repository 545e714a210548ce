import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { joinTransaction, type StoreDb } from '../../src/store/db.js';
import { openPostgresHandle, postgresDb } from '../../src/store/postgres/engine.js';
import { sqliteDb } from '../../src/store/sqlite/db.js';
import { openStore } from '../../src/store/sqlite/store.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';
import { deliveryRow, eventRow, invoiceRow, merchantRow, T0 } from '../helpers/store-rows.js';
import { tempDir } from '../helpers/temp-dir.js';

// The one store interface (src/store/db.ts) on both engines: a transaction's writes commit together
// or not at all, concurrent transactions do not undo each other, and reads outside see only what
// committed. SQLite runs them through its group commit, with asynchronous functions.
const server: PostgresServer = await startPostgres();

const open: StoreDb[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((db) => db.close()));
});

const engines: [string, () => Promise<StoreDb>][] = [
  ['SQLite', async () => sqliteDb(await openStore({ file: path.join(tempDir(), 'db.sqlite') }))],
  ['PostgreSQL', async () => postgresDb(await openPostgresHandle({ url: await server.createDatabase() }))],
];

describe.each(engines)('the store interface on %s', (_name, openDb) => {
  const fresh = async () => {
    const db = await openDb();
    open.push(db);
    await db.partners.insertPartner({ id: 'p1', name: 'Partner', created_at: T0 });
    const merchant = merchantRow('p1');
    await db.merchants.insertMerchant(merchant);
    return { db, merchant };
  };

  it('commits what a transaction wrote across awaits, and gives back its result', async () => {
    const { db, merchant } = await fresh();
    const a = invoiceRow(merchant);
    const b = invoiceRow(merchant);
    const result = await db.transaction(async (tx) => {
      await tx.invoices.insertInvoice(a);
      const seen = await tx.invoices.findInvoice(a.id);
      await tx.invoices.insertInvoice(b);
      return seen?.id;
    });
    expect(result).toBe(a.id);
    expect((await db.invoices.findInvoice(a.id))?.amount).toBe(a.amount);
    expect((await db.invoices.findInvoice(b.id))?.amount).toBe(b.amount);
  });

  it('keeps nothing of a transaction that rejects, and passes its error on', async () => {
    const { db, merchant } = await fresh();
    const a = invoiceRow(merchant);
    const failing = db.transaction(async (tx) => {
      await tx.invoices.insertInvoice(a);
      throw new Error('changed my mind');
    });
    await expect(failing).rejects.toThrow('changed my mind');
    expect(await db.invoices.findInvoice(a.id)).toBeUndefined();
  });

  it('runs concurrent transactions side by side: a failing one undoes only its own writes', async () => {
    const { db, merchant } = await fresh();
    const rows = Array.from({ length: 20 }, () => invoiceRow(merchant));
    const outcomes = await Promise.allSettled(
      rows.map((row, i) =>
        db.transaction(async (tx) => {
          await tx.invoices.insertInvoice(row);
          if (i % 4 === 0) throw new Error(`no ${i}`);
          await tx.meta.setMeta(`m${i}`, i);
          return i;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(rows.map((_, i) => (i % 4 === 0 ? 'rejected' : 'fulfilled')));
    for (const [i, row] of rows.entries()) {
      expect(Boolean(await db.invoices.findInvoice(row.id)), `invoice ${i}`).toBe(i % 4 !== 0);
      const isNumber = (v: unknown): v is number => typeof v === 'number';
      expect(await db.meta.getMeta(`m${i}`, isNumber)).toBe(i % 4 === 0 ? undefined : i);
    }
  });

  it('runs after-commit callbacks once the rows are visible outside the transaction, and never after a rollback', async () => {
    const { db, merchant } = await fresh();
    const row = invoiceRow(merchant);
    const seen: (string | undefined)[] = [];
    const checks: Promise<void>[] = [];
    await db.transaction(async (tx) => {
      await tx.invoices.insertInvoice(row);
      // Read through `db`: on PostgreSQL another connection, which sees only committed rows.
      tx.afterCommit(() => void checks.push(db.invoices.findInvoice(row.id).then((found) => void seen.push(found?.id))));
    });
    await Promise.all(checks);
    expect(seen).toEqual([row.id]);
    let called = false;
    await expect(
      db.transaction(async (tx) => {
        tx.afterCommit(() => {
          called = true;
        });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(called).toBe(false);
  });

  it('rejects a repository error as a promise, never a throw', async () => {
    const { db, merchant } = await fresh();
    const row = invoiceRow(merchant);
    await db.invoices.insertInvoice(row);
    const again = db.invoices.insertInvoice(row);
    expect(again).toBeInstanceOf(Promise);
    await expect(again).rejects.toThrow();
  });

  it('clearData empties every data table, children and parents, and keeps meta (the identity and the clock)', async () => {
    const { db, merchant } = await fresh();
    const invoice = invoiceRow(merchant);
    await db.invoices.insertInvoice(invoice);
    const event = eventRow(invoice, 1);
    await db.events.insertEvent(event);
    await db.deliveries.insertDelivery(deliveryRow(event.id, invoice));
    await db.keys.insertKey('pt_test_0123456789abcdefghijklmnopqrstuv', { partnerId: 'p1', merchantId: null }, T0);
    await db.meta.setMeta('kept', 7);
    await db.clearData();
    expect(await db.invoices.findInvoice(invoice.id)).toBeUndefined();
    expect(await db.events.findEvent(event.id)).toBeUndefined();
    expect(await db.deliveries.nextDeliveryDueAt()).toBeNull();
    expect(await db.keys.findKey('pt_test_0123456789abcdefghijklmnopqrstuv')).toBeUndefined();
    expect(await db.merchants.findMerchant(merchant.id)).toBeUndefined();
    expect(await db.partners.findPartner('p1')).toBeUndefined();
    expect(await db.meta.getMeta('kept', (v): v is number => typeof v === 'number')).toBe(7);
    // Empty tables take new rows (nothing of the old ones is in the way).
    await db.partners.insertPartner({ id: 'p1', name: 'Partner', created_at: T0 });
  });

  it('a joined transaction is the outer one: what it writes, and its own transaction(), commit or roll back with it', async () => {
    const { db, merchant } = await fresh();
    const [a, b, c, d] = [invoiceRow(merchant), invoiceRow(merchant), invoiceRow(merchant), invoiceRow(merchant)];
    const failing = db.transaction(async (tx) => {
      const joined = joinTransaction(tx, db);
      expect(await joined.checkHealth()).toBe(await db.checkHealth());
      await joined.invoices.insertInvoice(a);
      await joined.transaction(async (inner) => inner.invoices.insertInvoice(b));
      // The outer transaction sees the joined one's writes.
      expect((await tx.invoices.findInvoice(b.id))?.id).toBe(b.id);
      throw new Error('undo all');
    });
    await expect(failing).rejects.toThrow('undo all');
    expect(await db.invoices.findInvoice(a.id)).toBeUndefined();
    expect(await db.invoices.findInvoice(b.id)).toBeUndefined();

    await db.transaction(async (tx) => {
      const joined = joinTransaction(tx, db);
      await joined.invoices.insertInvoice(c);
      await joined.transaction(async (inner) => inner.invoices.insertInvoice(d));
      await expect(joined.close()).rejects.toThrow();
      await expect(joined.clearData()).rejects.toThrow();
    });
    expect((await db.invoices.findInvoice(c.id))?.id).toBe(c.id);
    expect((await db.invoices.findInvoice(d.id))?.id).toBe(d.id);
  });
});

describe('SQLite transactions when another program holds the write lock', () => {
  it("background work runs with SQLite's busy wait off, and requests with it on", async () => {
    // The wait is SQLite's busy handler, which blocks the whole event loop: background work must
    // never wait in it. (Prepared once, `PRAGMA busy_timeout = 0` did nothing: SQLite runs a
    // pragma when preparing it, so the wait stayed on and a busy lock froze svc for 5 s.)
    const store = await openStore({ file: path.join(tempDir(), 'db.sqlite') });
    try {
      const timeout = () => store.sqlite.pragma('busy_timeout', { simple: true });
      expect(store.background(timeout)).toBe(0);
      expect(store.background(() => store.background(timeout))).toBe(0);
      expect(timeout()).toBe(5000);
    } finally {
      store.close();
    }
  });

  it('background work (wait: false) is refused at once with SQLITE_BUSY; a request waits and then commits', async () => {
    const file = path.join(tempDir(), 'db.sqlite');
    const db = sqliteDb(await openStore({ file }));
    open.push(db);
    await db.partners.insertPartner({ id: 'p1', name: 'Partner', created_at: T0 });
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect(db.transaction(() => db.meta.setMeta('bg', 1), { wait: false })).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
      const waiting = db.transaction((tx) => tx.meta.setMeta('request', 2));
      await new Promise((resolve) => setTimeout(resolve, 30));
      other.exec('COMMIT');
      await waiting;
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
    const isNumber = (v: unknown): v is number => typeof v === 'number';
    expect(await db.meta.getMeta('request', isNumber)).toBe(2);
    expect(await db.meta.getMeta('bg', isNumber)).toBeUndefined();
  });
});
