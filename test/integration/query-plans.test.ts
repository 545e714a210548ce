import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
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
});
