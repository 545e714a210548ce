import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * The scheduler's and the dispatcher's lookups run on every tick and claim; on a table of a million
 * invoices a full scan there is a stall. Every statement the emulator prepares that looks for due
 * work (expiries, the delivery queue) must use an index: EXPLAIN says so.
 */
let emu: TestEmulator;
let rx: Receiver;
const statements = new Set<string>();

beforeAll(async () => {
  emu = await startTestEmulator({ clock: manualClock() });
  rx = await startReceiver({ status: 500 });
  // Record the SQL of every statement prepared from here on (observing, not replacing, prepare).
  const prepare = emu.store.sqlite.prepare.bind(emu.store.sqlite);
  emu.store.sqlite.prepare = ((source: string) => {
    statements.add(source);
    return prepare(source);
  }) as typeof emu.store.sqlite.prepare;

  const api = emu.client.test;
  const pt = emu.keys.test.partnerKey;
  await api.putWebhook({ body: { url: rx.url, secret: 'whsec_query_plans_1' } });
  await api.registerListener({ body: { forwardTo: 'http://localhost:1/h' } });
  for (let i = 0; i < 3; i++) {
    const inv = await api.createPartnerInvoice({ body: { merchantId: emu.keys.test.merchantId, amount: '2' }, idempotencyKey: ikey() });
    if (!inv.ok) throw new Error(inv.error.message);
    await api.createTestPayment({ key: pt, params: { id: inv.data.id }, body: { amount: '1' } });
  }
  await emu.advanceClock(3600 * 24);
  // Every list, each filter it takes, with and without a cursor.
  const mk = emu.keys.test.merchantId;
  const merchants = dataOf(await api.listMerchants({ query: { limit: 1 } })).data;
  await api.listMerchants({ query: { limit: 1, startingAfter: merchants[0]!.merchantId } });
  const invoices = dataOf(await api.listPartnerInvoices({ query: { limit: 1 } })).data;
  const after = invoices[0]!.id;
  await api.listPartnerInvoices({ query: { limit: 1, startingAfter: after, status: 'PAID' } });
  await api.listPartnerInvoices({ query: { limit: 1, startingAfter: after, merchantId: mk } });
  await api.listPartnerInvoices({ query: { limit: 1, startingAfter: after, merchantId: mk, status: 'EXPIRED' } });
  await api.listInvoices({ query: { limit: 1, startingAfter: after } });
  const deliveries = dataOf(await api.listDeliveries({ query: { limit: 1 } })).data;
  await api.listDeliveries({
    query: { limit: 1, startingAfter: deliveries[0]!.id, status: 'retrying', eventType: 'invoice.paid', invoiceId: after, merchantId: mk },
  });
});
afterAll(async () => {
  await emu.stop();
  await rx.close();
});

describe('query plans', () => {
  it('every lookup of due expiries and due deliveries uses an index, never a table scan', () => {
    const dueWork = [...statements].filter((s) => /next_attempt_at|expires_at/.test(s) && /select|update/i.test(s) && !/^\s*insert/i.test(s));
    // The expiry scan, the next-expiry and next-delivery lookups, and the claims were all exercised.
    expect(dueWork.length).toBeGreaterThanOrEqual(5);
    for (const source of dueWork) {
      const params = (source.match(/\?/g) ?? []).map(() => 0);
      const named = Object.fromEntries([...source.matchAll(/@(\w+)/g)].map((m) => [m[1], m[1] === 'busy' ? '{}' : m[1] === 'saturated' ? '[]' : 0]));
      const stmt = emu.store.sqlite.prepare(`EXPLAIN QUERY PLAN ${source}`);
      const plan = (Object.keys(named).length ? stmt.all(named) : stmt.all(...params)) as { detail: string }[];
      const details = plan.map((p) => p.detail).join(' | ');
      expect(details, source).not.toMatch(/\bSCAN (deliveries|invoices)\b(?! USING)/);
    }
  });

  it('every newest-first list reads its (…, created_at, id) index backwards to the cursor: no sort, no scan', () => {
    const lists = [...statements].filter((s) => /order by "created_at" desc, "id" desc/i.test(s));
    // merchants (2 shapes), invoices (4: a merchant key lists as a partner by merchantId does), deliveries (2).
    expect(lists.length).toBeGreaterThanOrEqual(8);
    for (const source of lists) {
      const plan = emu.store.sqlite.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...(source.match(/\?/g) ?? []).map(() => 0)) as { detail: string }[];
      const details = plan.map((p) => p.detail).join(' | ');
      expect(details, source).toMatch(/^SEARCH (merchants|invoices|deliveries) USING INDEX \w+_list \(/);
      expect(details, source).not.toMatch(/TEMP B-TREE|\bSCAN\b/);
      // With a cursor, the index is searched from it on (the row value is a range of the index).
      if (/\("created_at", "id"\) </.test(source)) expect(details, source).toMatch(/AND \(created_at,id\)<\(\?,\?\)\)/);
    }
  });
});
