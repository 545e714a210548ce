import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreConflictError } from '../../src/store/conflicts.js';
import type { StoreEngine } from '../helpers/pg-engine.js';
import { openPostgresEngine } from '../helpers/pg-engine.js';
import type { PgHandle } from '../../src/store/postgres/handle.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';
import { deliveryRow, eventRow, invoiceRow, seedInvoice, seedMerchant, T0 } from '../helpers/store-rows.js';

// What SQLite gets from one writer at a time, PostgreSQL's repositories get from constraints and row
// locks: concurrent creates with one Idempotency-Key make one resource, concurrent claimers never
// take the same delivery, and concurrent changes to one invoice are not lost.
const server: PostgresServer = await startPostgres();

const engines: StoreEngine<PgHandle>[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});
async function freshEngine(maxConnections = 10): Promise<StoreEngine<PgHandle>> {
  const engine = await openPostgresEngine({ url: await server.createDatabase(), maxConnections });
  engines.push(engine);
  return engine;
}

/** A promise and the function that settles it: holds a transaction open until the test lets it go. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('PostgreSQL repositories under concurrency', () => {
  it('turn 200 concurrent creates with one Idempotency-Key into one invoice, one event, and 199 replays', async () => {
    const engine = await freshEngine(20);
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    const scope = 'one-key';

    // What the pipeline does for a create (src/server/pipeline/idempotency.ts, handler.ts), on the
    // store interface: a replay when the key is known, otherwise the create, its event and the
    // record in one transaction; a lost race rolls back and replays the winner's response.
    const create = async (): Promise<{ status: number; body: string }> => {
      const known = await repos.idempotency.findIdempotent(db, scope, T0);
      if (known) return { status: 200, body: known.response };
      try {
        return await engine.transaction(async (tx) => {
          const invoice = invoiceRow(merchant);
          await repos.invoices.insertInvoice(tx, invoice);
          await repos.events.insertEvent(tx, eventRow(invoice, 1));
          const body = JSON.stringify({ id: invoice.id });
          await repos.idempotency.rememberIdempotent(tx, { scope, fingerprint: 'f', status: 201, response: body, created_at: T0, expires_at: T0 + 86_400_000 });
          return { status: 201, body };
        });
      } catch (error) {
        if (!(error instanceof StoreConflictError)) throw error;
        const winner = await repos.idempotency.findIdempotent(db, scope, T0);
        return { status: 200, body: winner!.response };
      }
    };

    const answers = await Promise.all(Array.from({ length: 200 }, create));
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200 && a.body === created[0]!.body)).toHaveLength(199);
    const invoices = await repos.invoices.listInvoices(db, { partnerId: merchant.partner_id, environment: 'test' }, { limit: 100 });
    expect(invoices.map((i) => JSON.stringify({ id: i.id }))).toEqual([created[0]!.body]);
    expect(await repos.events.eventsOfInvoice(db, invoices[0]!.id)).toHaveLength(1);
  });

  /**
   * 20 due deliveries, one per receiver; a first claimer takes 10 in a transaction that stays open
   * (its rows locked, its claim turn held) while `second` claims: its rows, and the first's.
   */
  async function claimBesideAnOpenClaim(second: (engine: Awaited<ReturnType<typeof freshEngine>>) => Promise<{ id: string }[]>) {
    const engine = await freshEngine();
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    const invoice = await seedInvoice(engine, merchant);
    for (let i = 0; i < 20; i++) {
      await repos.deliveries.insertDelivery(db, deliveryRow(`${invoice.id}-1`, invoice, { url: `http://r${i}/hook`, next_attempt_at: T0 + i }));
    }
    const hold = gate();
    const claimedFirst = gate();
    let first: string[] = [];
    const holder = engine.transaction(async (tx) => {
      first = (await repos.deliveries.claimDue(tx, T0 + 100, 10, 5, new Map())).map((d) => d.id);
      claimedFirst.open();
      await hold.opened;
    });
    await claimedFirst.opened;
    const taken = (await second(engine)).map((d) => d.id);
    hold.open();
    await holder;
    expect(first).toHaveLength(10);
    expect(taken).toHaveLength(10);
    expect(new Set([...first, ...taken]).size).toBe(20);
    return engine;
  }

  it('let a second claimer pass over the rows a first one holds, without waiting for it', async () => {
    // Without SKIP LOCKED the second would wait for the first, and this test would hang.
    const { repos, db } = await claimBesideAnOpenClaim(({ repos, db }) => repos.deliveries.claimDue(db, T0 + 100, 10, 5, new Map()));
    expect(await repos.deliveries.claimDue(db, T0 + 100, 10, 5, new Map())).toEqual([]);
  });

  it('let a claim in a transaction go ahead without its turn when a stuck claimer holds it past the wait', async () => {
    // Claims take turns (the per-receiver cap across replicas); the first never commits, as a frozen
    // replica would: the second must not wait for it forever.
    await claimBesideAnOpenClaim((engine) => engine.transaction((tx) => engine.repos.deliveries.claimDue(tx, T0 + 100, 10, 5, new Map())));
  });

  it('never give one delivery to two of several concurrent claimers', async () => {
    const engine = await freshEngine(8);
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    const invoice = await seedInvoice(engine, merchant);
    await engine.transaction(async (tx) => {
      for (let i = 0; i < 300; i++) {
        await repos.deliveries.insertDelivery(tx, deliveryRow(`${invoice.id}-1`, invoice, { url: `http://r${i % 7}/hook`, next_attempt_at: T0 + (i % 13) }));
      }
    });
    // Claimers alternate between both claim functions until nothing is left due.
    const claimer = async (n: number): Promise<string[]> => {
      const taken: string[] = [];
      for (;;) {
        const rows =
          n % 2
            ? await repos.deliveries.claimDue(db, T0 + 100, 9, 1000, new Map())
            : await repos.deliveries.claimDueForUrl(db, `http://r${taken.length % 7}/hook`, T0 + 100, 9);
        taken.push(...rows.map((r) => r.id));
        if (rows.length === 0 && (await repos.deliveries.nextDeliveryDueAt(db)) === null) return taken;
      }
    };
    const all = (await Promise.all([0, 1, 2, 3, 4, 5].map(claimer))).flat();
    expect(all).toHaveLength(300);
    expect(new Set(all).size).toBe(300);
  });

  it('lock an invoice read in a transaction, so two concurrent changes to it are both kept', async () => {
    const engine = await freshEngine();
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    const invoice = await seedInvoice(engine, merchant);
    // Each change reads the invoice, writes the next event and saves the new sequence, as a
    // payment does (src/server/actions/). A reads first and holds its transaction open until B has
    // either read too (no lock: both saw sequence 1, and B's event id collides) or is waiting for
    // A's lock (B then reads what A saved): only the second keeps both changes.
    const change = async (tx: PgHandle, amount: string, afterRead: () => Promise<void>) => {
      const row = (await repos.invoices.findInvoice(tx, invoice.id))!;
      await afterRead();
      const sequence = row.last_sequence + 1;
      await repos.events.insertEvent(tx, { ...eventRow(invoice, sequence), type: 'invoice.partially_paid' });
      await repos.invoices.saveInvoiceState(tx, {
        ...row,
        status: 'PARTIALLY_PAID',
        amount_received: amount,
        last_sequence: sequence,
        updated_at: T0 + sequence,
      });
    };
    const aRead = gate();
    const proceed = gate();
    const a = engine.transaction((tx) =>
      change(tx, '1.00', async () => {
        aRead.open();
        await proceed.opened;
      }),
    );
    await aRead.opened;
    let bRead = false;
    const b = engine.transaction((tx) =>
      change(tx, '2.00', async () => {
        bRead = true;
      }),
    );
    const lockWaiters = async () =>
      Number(
        (await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db))
          .rows[0]!.n,
      );
    // A condition, polled with a generous ceiling (the test's timeout), never a fixed delay.
    while (!bRead && (await lockWaiters()) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    proceed.open();
    await Promise.all([a, b]);
    expect((await repos.invoices.findInvoice(db, invoice.id))!).toMatchObject({ last_sequence: 3, amount_received: '2.00' });
    expect((await repos.events.eventsOfInvoice(db, invoice.id)).map((e) => e.sequence)).toEqual([1, 2, 3]);
  });
});
