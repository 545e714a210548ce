/**
 * CONTRACT §3 and §12: lists are newest first, and rows of equal `createdAt` are ordered by id
 * (descending), on either engine; `startingAfter` pages after the cursor row in that order. With a
 * frozen clock (`clockStart`, never advanced) every row of a session has one `createdAt`: before,
 * lists came in write order while ids were random after their millisecond, so a list was not in the
 * order the contract names.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataOf, expectRefused } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { freshPostgresDatabase, testEngine } from '../helpers/postgres-database.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

const START = '2030-01-01T00:00:00Z';
const emulators: TestEmulator[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((e) => e.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

interface Listed {
  id: string;
  createdAt: string;
}

/** The contract's order: createdAt descending, then id descending. */
const newestFirst = (a: Listed, b: Listed) => b.createdAt.localeCompare(a.createdAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Every page of a list of `limit`, following `startingAfter` while `hasMore`. */
async function pageThrough(limit: number, fetch: (startingAfter: string | undefined) => Promise<{ data: Listed[]; hasMore: boolean }>): Promise<Listed[]> {
  const all: Listed[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await fetch(after);
    all.push(...page.data);
    if (!page.hasMore) return all;
    expect(page.data).toHaveLength(limit);
    after = page.data.at(-1)!.id;
  }
  throw new Error('more than 100 pages');
}

/** The list paged by 7 is every row exactly once, in the contract's order: the newest made first. */
function expectInOrder(paged: Listed[], made: string[]): void {
  expect(new Set(paged.map((r) => r.id)).size).toBe(paged.length);
  expect(paged.map((r) => r.id).sort()).toEqual([...made].sort());
  expect(paged.map((r) => r.id)).toEqual([...paged].sort(newestFirst).map((r) => r.id));
  // One generator's v7 ids grow within a millisecond: by id descending is the reverse of the making.
  expect(paged.map((r) => r.id)).toEqual([...made].reverse());
}

describe('lists at one instant', () => {
  it('page by 7 through 30 merchants, invoices and deliveries made at one instant: by id, newest first, none twice, none missed', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const emu = await startTestEmulator({ seed: 11, clockStart: START });
    emulators.push(emu);
    const api = emu.client.test;
    dataOf(await api.putWebhook({ body: { url: receiver.url, secret: 'whsec_list_order_0123456789' } }));
    const merchants = [emu.keys.test.merchantId];
    const invoices: string[] = [];
    for (let i = 0; i < 30; i++) {
      const body = { externalTenantId: `tenant-${i}`, email: `m${i}@example.com`, name: `Merchant ${i}` };
      merchants.push(dataOf(await api.createMerchant({ body, idempotencyKey: ikey() }), 201).merchantId);
    }
    for (let i = 0; i < 30; i++) {
      // Across merchants: the partner's list interleaves them; each merchant's list is its own.
      const merchantId = merchants[i % 3]!;
      invoices.push(dataOf(await api.createPartnerInvoice({ body: { merchantId, amount: `${i + 1}.00` }, idempotencyKey: ikey() }), 201).id);
    }
    await receiver.waitFor(30);

    const merchantList = await pageThrough(7, async (startingAfter) => {
      const page = dataOf(await api.listMerchants({ query: { limit: 7, startingAfter } }));
      return { data: page.data.map((m) => ({ id: m.merchantId, createdAt: m.createdAt })), hasMore: page.hasMore };
    });
    expect(new Set(merchantList.map((m) => m.createdAt))).toEqual(new Set([new Date(START).toISOString()]));
    expectInOrder(merchantList, merchants);

    // An invoice shows no createdAt (interface §2.2); its expiresAt is createdAt plus the one lifetime.
    const invoicePage = (page: { data: { id: string; expiresAt: string }[]; hasMore: boolean }) => ({
      data: page.data.map((r) => ({ id: r.id, createdAt: r.expiresAt })),
      hasMore: page.hasMore,
    });
    const invoiceList = await pageThrough(7, async (startingAfter) =>
      invoicePage(dataOf(await api.listPartnerInvoices({ query: { limit: 7, startingAfter } }))),
    );
    expect(new Set(invoiceList.map((r) => r.createdAt))).toEqual(new Set(['2030-01-01T01:00:00.000Z']));
    expectInOrder(invoiceList, invoices);
    // One merchant's invoices (the partner's filter, and the merchant key's own list), paged by 4.
    const ofDefault = invoices.filter((_, i) => i % 3 === 0);
    const filtered = await pageThrough(4, async (startingAfter) =>
      invoicePage(dataOf(await api.listPartnerInvoices({ query: { limit: 4, startingAfter, merchantId: emu.keys.test.merchantId } }))),
    );
    expectInOrder(filtered, ofDefault);
    const own = await pageThrough(4, async (startingAfter) => invoicePage(dataOf(await api.listInvoices({ query: { limit: 4, startingAfter } }))));
    expectInOrder(own, ofDefault);

    const deliveryList = await pageThrough(7, async (startingAfter) => dataOf(await api.listDeliveries({ query: { limit: 7, startingAfter } })));
    expect(new Set(deliveryList.map((d) => d.id)).size).toBe(30);
    expect(new Set(deliveryList.map((d) => d.createdAt))).toEqual(new Set([new Date(START).toISOString()]));
    expect(deliveryList.map((d) => d.id)).toEqual([...deliveryList].sort(newestFirst).map((d) => d.id));
    // Each invoice's delivery was made with it: the deliveries list in the invoices' order.
    const byDelivery = new Map(dataOf(await api.listDeliveries({ query: { limit: 100 } })).data.map((d) => [d.id, d.invoiceId]));
    expect(deliveryList.map((d) => byDelivery.get(d.id))).toEqual([...invoices].reverse());

    // An unknown cursor is refused as before.
    expectRefused(await api.listPartnerInvoices({ query: { limit: 7, startingAfter: merchants[1]! } }), 400, 'validation_failed', 'startingAfter');
  });

  it('rows of one createdAt written in an order unlike their ids list by id, not by write order', async () => {
    // Two starts of a seeded emulator on one database, the clock frozen at the same instant: the second
    // start's ids come from a generator of their own (the seed's next epoch), and with this seed they
    // all sort before the first start's, although written after them.
    const storage = testEngine() === 'postgres' ? { database: await freshPostgresDatabase() } : { db: path.join(tempDir(), 'two-starts.sqlite') };
    const start = async () => {
      const emu = await startTestEmulator({ ...storage, seed: 5, clockStart: START });
      emulators.push(emu);
      const made: string[] = [];
      for (let i = 0; i < 3; i++) made.push(dataOf(await emu.client.test.createInvoice({ body: { amount: '1.00' }, idempotencyKey: ikey() }), 201).id);
      return { emu, made };
    };
    const first = await start();
    await first.emu.stop();
    emulators.splice(0);
    const second = await start();
    // The case this test is about: written later, sorting lower.
    expect(
      second.made.every((id) => first.made.every((earlier) => id < earlier)),
      `${second.made} / ${first.made}`,
    ).toBe(true);

    const list = dataOf(await second.emu.client.test.listInvoices({ query: { limit: 100 } })).data;
    expect(new Set(list.map((r) => r.expiresAt))).toEqual(new Set(['2030-01-01T01:00:00.000Z']));
    expect(list.map((r) => r.id)).toEqual([...first.made, ...second.made].sort().reverse());
    // Paged after the first start's oldest: the second start's rows, though written last.
    const after = dataOf(await second.emu.client.test.listInvoices({ query: { limit: 2, startingAfter: first.made[0]! } }));
    expect(after.data.map((r) => r.id)).toEqual([second.made[2], second.made[1]]);
    expect(after.hasMore).toBe(true);
  });
});
