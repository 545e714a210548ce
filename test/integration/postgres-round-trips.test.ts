/**
 * What a create and a read cost in round trips to PostgreSQL (issue 27): on PostgreSQL each
 * statement is a round trip to another process, and the round trips, not the SQL, are what the
 * PostgreSQL rows of the benchmarks pay (docs/performance.md "The PostgreSQL store"). A count, the
 * same on any machine: it fails when a change adds a statement to these paths. The relay
 * (helpers/pg-relay.ts) counts what the emulator sends; the webhook is configured but disabled, as
 * bench/lib/statement-probe.mjs has it; the request journal's write behind the answer is counted
 * apart. Each is the fewest of 3: the scheduler's occasional look at
 * the tables only ever adds to one.
 */
import { describe, expect, it } from 'vitest';
import { openPostgresEngine, postgresDb } from '../../src/store/postgres/engine.js';
import type { NewInvoice } from '../../src/store/repos/invoices.js';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator } from '../helpers/emulator.js';
import { startPgRelay } from '../helpers/pg-relay.js';
import { startPostgres } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';
import { seedInvoice, seedMerchant } from '../helpers/store-rows.js';

const server = await startPostgres();

const fewest = async (count: () => Promise<string[]>) => {
  const runs = [await count(), await count(), await count()];
  return runs.reduce((a, b) => (b.length < a.length ? b : a));
};

describe('round trips to PostgreSQL', () => {
  it('a create is 2 round trips (and a NOTIFY after its answer), a read by id 1', async () => {
    const relay = await startPgRelay(await server.createDatabase());
    const emu = await startTestEmulator({ database: relay.url });
    try {
      const { test } = emu.client;
      dataOf(await test.putWebhook({ body: { url: 'http://127.0.0.1:9/hook', secret: 'whsec_trips_0123456789', enabled: false } }));
      const create = async () => dataOf(await test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
      // The first create and read fill what the emulator keeps in memory (keys, the merchant, the webhook).
      const { id } = await create();
      dataOf(await test.getInvoice({ params: { id } }));
      const counted = await fewest(() => relay.count(create));
      // The request journal is written behind the answer, batched (one statement for many requests
      // under load, one for this lone one when it is flushed in time to be counted here; the trim
      // comes every hundred entries): at most one of the statements, and it notifies in itself.
      const journal = counted.filter((s) => s.includes('request_journal'));
      expect(journal.length, counted.join('\n')).toBeLessThanOrEqual(1);
      if (journal[0]) expect(journal[0]).toMatch(/pg_notify/);
      const creates = counted.filter((s) => !s.includes('request_journal'));
      // One round trip: BEGIN with the reset lock (no idempotency lookup first: pipeline/idempotency.ts)
      // and the idempotency record's statement carrying the invoice and its event
      // (store/postgres/deferred-writes.ts), sent together (store/postgres/statement-batch.ts); then
      // COMMIT; the NOTIFY.
      expect(creates, creates.join('\n')).toHaveLength(3);
      expect(creates[0]).toMatch(
        /^BEGIN; SELECT pg_advisory_xact_lock_shared\(\d+\); WITH d0 AS \(insert into "invoices" .*\), d1 AS \(insert into "events" .*\) insert into "idempotency_keys"/,
      );
      expect(creates[1]).toBe('commit');
      expect(creates.at(-1)).toMatch(/pg_notify/);
      const reads = (await fewest(() => relay.count(() => test.getInvoice({ params: { id } })))).filter((s) => !s.includes('request_journal'));
      expect(reads, reads.join('\n')).toEqual(['select * from invoices where id = any($1::text[])']);
    } finally {
      await emu.stop();
    }
  });

  it('reads by id asked while one is on its way go in one statement, each caller getting its own row', async () => {
    const relay = await startPgRelay(await server.createDatabase());
    const engine = await openPostgresEngine({ url: relay.url });
    const db = postgresDb(engine);
    try {
      const merchant = await seedMerchant(engine);
      const invoices: NewInvoice[] = [];
      for (let i = 0; i < 30; i++) invoices.push(await seedInvoice(engine, merchant, { amount: `${i + 1}.000000` }));
      // An id holding U+0000 too: PostgreSQL would fail the statement, and every read in it (the
      // repository leaves it out: store/postgres/repos/handle.ts holdsNul).
      const ids = [...invoices.map((i) => i.id), invoices[0]!.id, 'no-such-invoice', 'a\0b'];
      let found: Awaited<ReturnType<typeof db.invoices.findInvoice>>[] = [];
      const sent = await relay.count(async () => {
        found = await Promise.all(ids.map((id) => db.invoices.findInvoice(id)));
      });
      // The first alone at once; the 32 others (one asked twice, two that do not exist) together
      // once it answered. Before: 33 statements.
      expect(sent, sent.join('\n')).toEqual(Array(2).fill('select * from invoices where id = any($1::text[])'));
      expect(found.map((row) => row?.amount)).toEqual([...invoices.map((i) => i.amount), invoices[0]!.amount, undefined, undefined]);
      expect(found[30]).not.toBe(found[0]);
      // In a transaction a read stays its own, locking its row (repos/invoices.ts).
      const inTransaction = await relay.count(() => db.transaction((tx) => tx.invoices.findInvoice(invoices[1]!.id)));
      expect(
        inTransaction.some((s) => /(^|; )select \* from "invoices" where "id" = \$1 for update$/.test(s)),
        inTransaction.join('\n'),
      ).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('an expiry of 30 invoices writes their events, deliveries and states in a few statements', async () => {
    const receiver = await startReceiver({ status: 200 });
    const relay = await startPgRelay(await server.createDatabase());
    // A frozen clock: the 30 invoices expire at one instant, in one batch of the expiry.
    const emu = await startTestEmulator({ database: relay.url, clockStart: '2030-01-01T00:00:00Z' });
    try {
      const { test } = emu.client;
      dataOf(await test.putWebhook({ body: { url: receiver.url, secret: 'whsec_trips_0123456789' } }));
      for (let i = 0; i < 30; i++) dataOf(await test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
      const sent = await relay.count(async () => dataOf(await test.advanceClock({ body: { seconds: 3600 } })));
      // Before: a read of the invoice's last payment, carrying the previous invoice's three writes, per
      // invoice (30 statements). Now one read for the batch and the 90 writes kept together, at most
      // 64 at once (store/postgres/deferred-writes.ts), the rows of one table one insert.
      const expiryWrites = sent.filter((s) => /insert into "events"|update "invoices"/.test(s));
      expect(expiryWrites.length, expiryWrites.join('\n')).toBeGreaterThanOrEqual(1);
      expect(expiryWrites.length, expiryWrites.join('\n')).toBeLessThanOrEqual(3);
      expect(
        sent.filter((s) => s.includes('"payments"')),
        'one read of the last payments',
      ).toHaveLength(1);
      await receiver.waitFor(60);
      expect(receiver.requests.filter((r) => (JSON.parse(r.rawBody) as { type: string }).type === 'invoice.expired')).toHaveLength(30);
    } finally {
      await emu.stop();
      await receiver.close();
    }
  });

  it('two events of one change, written in one statement, keep their order in seq (PostgreSQL runs CTEs last to first)', async () => {
    const receiver = await startReceiver({ status: 200 });
    const relay = await startPgRelay(await server.createDatabase());
    const emu = await startTestEmulator({ database: relay.url });
    try {
      const { test } = emu.client;
      dataOf(await test.putWebhook({ body: { url: receiver.url, secret: 'whsec_trips_0123456789' } }));
      const { id } = dataOf(await test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
      // An overpayment: invoice.paid then invoice.overpaid, each with its delivery, in one transaction.
      const sent = await relay.count(async () => dataOf(await test.createTestPayment({ params: { id }, body: { amount: '2.00' } }), 201));
      expect(
        sent.some((s) => /^WITH .*insert into "events" \([^)]*\) values \([^)]*\), \(/.test(s)),
        sent.join('\n'),
      ).toBe(true);
      const events = await emu.query(`select type, sequence from events where invoice_id = '${id}' order by seq`);
      expect(events.map((e) => e.type)).toEqual(['invoice.created', 'invoice.paid', 'invoice.overpaid']);
      expect(events.map((e) => Number(e.sequence))).toEqual([1, 2, 3]);
      const deliveries = await emu.query(`select event_type from deliveries where invoice_id = '${id}' order by seq`);
      expect(deliveries.map((d) => d.event_type)).toEqual(['invoice.created', 'invoice.paid', 'invoice.overpaid']);
    } finally {
      await emu.stop();
      await receiver.close();
    }
  });
});
