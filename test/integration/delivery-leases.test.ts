import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreDb } from '../../src/store/db.js';
import { openPostgresHandle, postgresDb } from '../../src/store/postgres/engine.js';
import type { Lease } from '../../src/store/repos/deliveries.js';
import { sqliteDb } from '../../src/store/sqlite/db.js';
import { openStore, type OpenedStore } from '../../src/store/sqlite/store.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';
import { deliveryRow, eventRow, invoiceRow, merchantRow, T0 } from '../helpers/store-rows.js';
import { tempDir } from '../helpers/temp-dir.js';

// Leases on claimed deliveries (CONTRACT §12, issue 28), at the repository level on both engines:
// a claim records its token and the end of its lease; an expired lease is released (due again,
// attempt count unchanged), a live one is not; a claim that lost its lease can neither release nor
// complete the delivery another claim now holds. A lease lasts a length (ms) measured on the store's
// clock (CONTRACT §12): a lease of 0 ms has ended by the time anything else runs.
const server: PostgresServer = await startPostgres();

const open: StoreDb[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((db) => db.close()));
});

let sqliteStore: OpenedStore | null = null;
const engines: [string, () => Promise<StoreDb>][] = [
  [
    'SQLite',
    async () => {
      sqliteStore = await openStore({ file: path.join(tempDir(), 'db.sqlite') });
      return sqliteDb(sqliteStore);
    },
  ],
  ['PostgreSQL', async () => postgresDb(await openPostgresHandle({ url: await server.createDatabase() }))],
];

const OWNER_A = '00000000-0000-4000-8000-00000000000a';
const OWNER_B = '00000000-0000-4000-8000-00000000000b';
const lease = (owner: string, n: number, ms: number): Lease => ({ token: `${owner}.${n}`, ms });
/** Long enough to outlast any test; every release below names this length. */
const LONG = 60_000;
const URL_A = 'http://127.0.0.1:1/a';

describe.each(engines)('delivery leases on %s', (engine, openDb) => {
  /** A store with `n` deliveries to URL_A, due at T0. */
  const fresh = async (n = 1) => {
    const db = await openDb();
    open.push(db);
    await db.partners.insertPartner({ id: 'p1', name: 'Partner', created_at: T0 });
    const merchant = merchantRow('p1');
    await db.merchants.insertMerchant(merchant);
    const invoice = invoiceRow(merchant);
    await db.invoices.insertInvoice(invoice);
    const event = eventRow(invoice, 1);
    await db.events.insertEvent(event);
    const rows = Array.from({ length: n }, (_, i) => deliveryRow(event.id, invoice, { url: URL_A, next_attempt_at: T0 + i }));
    for (const row of rows) await db.deliveries.insertDelivery(row);
    return { db, rows };
  };

  it('a claim records its lease: the token and when it ends, its length from now', async () => {
    const { db, rows } = await fresh(2);
    const before = Date.now();
    const first = await db.transaction((tx) => tx.deliveries.claimDue(T0 + 10, 1, 64, new Map(), lease(OWNER_A, 1, 5000)));
    const second = await db.transaction((tx) => tx.deliveries.claimDueForUrl(URL_A, T0 + 10, 5, lease(OWNER_A, 2, 6000), 64));
    const after = Date.now();
    expect(first.map((d) => [d.id, d.in_flight, d.lease_token])).toEqual([[rows[0]!.id, 1, `${OWNER_A}.1`]]);
    expect(second.map((d) => [d.id, d.lease_token])).toEqual([[rows[1]!.id, `${OWNER_A}.2`]]);
    // The store's clock is this machine's (the test's server runs here): within the calls, give or take a second.
    expect(Number(first[0]!.lease_until)).toBeGreaterThanOrEqual(before + 5000 - 1000);
    expect(Number(first[0]!.lease_until)).toBeLessThanOrEqual(after + 5000 + 1000);
    expect(Number(second[0]!.lease_until) - Number(first[0]!.lease_until)).toBeGreaterThan(0);
  });

  it('a lease ending more than one lease length from now is let go (a row from elsewhere: a clock ahead, then gone)', async () => {
    const { db, rows } = await fresh(1);
    await db.deliveries.claimDue(T0 + 10, 1, 64, new Map(), lease(OWNER_B, 1, LONG));
    expect(await db.deliveries.releaseExpiredLeases(LONG)).toBe(0);
    // Its lease ends a minute from now: far more than a lease length of one second ever makes.
    expect(await db.deliveries.releaseExpiredLeases(LONG / 60)).toBe(1);
    expect((await db.deliveries.findDelivery(rows[0]!.id))!.in_flight).toBe(0);
  });

  it('an expired lease is released, due again with its attempt count unchanged; a live one is not', async () => {
    const { db, rows } = await fresh(2);
    await db.deliveries.claimDue(T0 + 10, 1, 64, new Map(), lease(OWNER_A, 1, 0));
    await db.deliveries.claimDue(T0 + 10, 1, 64, new Map(), lease(OWNER_B, 1, LONG));
    // A's lease of 0 ms has ended; B's has not.
    expect(await db.deliveries.releaseExpiredLeases(LONG)).toBe(1);
    const released = (await db.deliveries.findDelivery(rows[0]!.id))!;
    expect([released.in_flight, released.lease_token, released.lease_until, released.attempt_count, released.status]).toEqual([0, null, null, 0, 'pending']);
    const live = (await db.deliveries.findDelivery(rows[1]!.id))!;
    expect([live.in_flight, live.lease_token]).toEqual([1, `${OWNER_B}.1`]);
    // Due again: the next claim takes it; B's claim stays B's.
    const again = await db.deliveries.claimDue(T0 + 10, 10, 64, new Map(), lease(OWNER_B, 2, LONG));
    expect(again.map((d) => d.id)).toEqual([rows[0]!.id]);
  });

  it('renewing extends only the owner’s own leases', async () => {
    const { db, rows } = await fresh(2);
    await db.deliveries.claimDue(T0 + 10, 1, 64, new Map(), lease(OWNER_A, 1, 0));
    await db.deliveries.claimDue(T0 + 10, 1, 64, new Map(), lease(OWNER_B, 1, 0));
    expect(await db.deliveries.renewLeases(OWNER_A, LONG)).toBe(1);
    expect(await db.deliveries.releaseExpiredLeases(LONG)).toBe(1);
    expect((await db.deliveries.findDelivery(rows[0]!.id))!.in_flight).toBe(1);
    expect((await db.deliveries.findDelivery(rows[1]!.id))!.in_flight).toBe(0);
  });

  it('a claim that lost its lease cannot release or complete what another claim now holds', async () => {
    const { db, rows } = await fresh(1);
    const id = rows[0]!.id;
    const lost = lease(OWNER_A, 1, 0);
    await db.deliveries.claimDue(T0 + 10, 1, 64, new Map(), lost);
    expect(await db.deliveries.releaseExpiredLeases(LONG)).toBe(1);
    const holder = lease(OWNER_B, 1, LONG);
    expect((await db.deliveries.claimDue(T0 + 10, 1, 64, new Map(), holder)).map((d) => d.id)).toEqual([id]);

    // The late result of A: refused, and nothing of B's claim changes.
    expect(await db.transaction((tx) => tx.deliveries.endLeases([{ id, token: lost.token }]))).toEqual([]);
    await db.deliveries.releaseDelivery(id, lost.token);
    const held = (await db.deliveries.findDelivery(id))!;
    expect([held.in_flight, held.lease_token, held.lease_until !== null, held.attempt_count]).toEqual([1, holder.token, true, 0]);

    // B's own result: accepted, and the lease ends with it.
    expect(
      await db.transaction((tx) =>
        tx.deliveries.endLeases([
          { id, token: lost.token },
          { id, token: holder.token },
        ]),
      ),
    ).toEqual([id]);
    const done = (await db.deliveries.findDelivery(id))!;
    expect([done.lease_token, done.lease_until]).toEqual([null, null]);
  });

  it('ending a batch’s leases and reading its rows: only the leases still held end; every row asked for is read', async () => {
    const { db, rows } = await fresh(3);
    const [a, b, c] = rows.map((r) => r.id) as [string, string, string];
    const mine = lease(OWNER_A, 1, 5000);
    await db.deliveries.claimDue(T0 + 10, 2, 64, new Map(), mine);
    const result = await db.transaction((tx) =>
      tx.deliveries.endLeasesAndFind(
        [
          { id: a, token: mine.token },
          { id: b, token: `${OWNER_B}.9` },
        ],
        [a, b, c, 'no-such-delivery'],
      ),
    );
    // a's lease was this claim's; b's token is not the one b holds; c was never claimed.
    expect(result.held).toEqual([a]);
    expect(Object.fromEntries(result.rows.map((r) => [r.id, r.in_flight]))).toEqual({ [a]: 1, [b]: 1, [c]: 0 });
    expect(result.rows).toHaveLength(3);
    const after = await Promise.all([a, b].map(async (id) => (await db.deliveries.findDelivery(id))!.lease_token));
    expect(after).toEqual([null, mine.token]);
    // Nothing asked for: nothing read, and leases still end.
    expect(await db.transaction((tx) => tx.deliveries.endLeasesAndFind([{ id: b, token: mine.token }], []))).toEqual({ held: [b], rows: [] });
  });

  it('a release with the claim’s own token hands the delivery back', async () => {
    const { db, rows } = await fresh(1);
    const mine = lease(OWNER_A, 7, 5000);
    await db.deliveries.claimDue(T0 + 10, 1, 64, new Map(), mine);
    await db.deliveries.releaseDelivery(rows[0]!.id, mine.token);
    const row = (await db.deliveries.findDelivery(rows[0]!.id))!;
    expect([row.in_flight, row.lease_token, row.lease_until]).toEqual([0, null, null]);
  });

  if (engine === 'PostgreSQL') {
    it('counts every replica’s attempts to a receiver against its in-flight cap', async () => {
      const { db } = await fresh(6);
      // "Another replica" holds 3 of URL_A's deliveries; this one's own count (busy) knows none.
      expect(await db.deliveries.claimDue(T0 + 10, 3, 4, new Map(), lease(OWNER_B, 1, LONG))).toHaveLength(3);
      expect(await db.deliveries.claimDue(T0 + 10, 10, 4, new Map(), lease(OWNER_A, 1, 0))).toHaveLength(1);
      expect(await db.deliveries.claimDue(T0 + 10, 10, 4, new Map(), lease(OWNER_A, 2, 0))).toEqual([]);
      expect(await db.deliveries.claimDueForUrl(URL_A, T0 + 10, 10, lease(OWNER_A, 3, 0), 4)).toEqual([]);
      // This replica's one claim ends: room for one more, by URL too, while the other's 3 still count.
      expect(await db.deliveries.releaseExpiredLeases(LONG)).toBe(1);
      expect(await db.deliveries.claimDueForUrl(URL_A, T0 + 10, 10, lease(OWNER_A, 4, LONG), 4)).toHaveLength(1);
    });
  } else {
    it('releasing expired leases and renewing read only the claimed rows (an index, never a table scan)', async () => {
      const { db } = await fresh(1);
      const store = sqliteStore!;
      // The statements as the repository prepares them (observing prepare, as query-plans.test.ts does).
      const seen: string[] = [];
      const prepare = store.sqlite.prepare.bind(store.sqlite);
      store.sqlite.prepare = ((source: string) => {
        seen.push(source);
        return prepare(source);
      }) as typeof store.sqlite.prepare;
      await db.deliveries.releaseExpiredLeases(1);
      await db.deliveries.renewLeases(OWNER_A, 1);
      store.sqlite.prepare = prepare;
      const sweeps = seen.filter((s) => /lease_until/.test(s));
      expect(sweeps).toHaveLength(2);
      for (const source of sweeps) {
        const params = (source.match(/\?/g) ?? []).map(() => 0);
        const plan = store.sqlite.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...params) as { detail: string }[];
        expect(plan.map((p) => p.detail).join(' | '), source).toMatch(/USING INDEX deliveries_leased/);
      }
    });
  }
});
