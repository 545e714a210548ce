import { afterEach, describe, expect, it } from 'vitest';
import { StoreConflictError } from '../../src/store/conflicts.js';
import type { StoreEngine } from '../helpers/pg-engine.js';
import { openPostgresEngine } from '../helpers/pg-engine.js';
import type { PgHandle } from '../../src/store/postgres/handle.js';
import { isFiniteNumber } from '../../src/store/repos/meta.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';
import { deliveryRow, eventRow, invoiceRow, seedInvoice, seedMerchant, T0 } from '../helpers/store-rows.js';

// PostgreSQL's repositories (src/store/postgres/repos/) do what SQLite's do, through the store
// interface (src/store/engine.ts): values come back exactly as stored, lists page newest first,
// uniqueness holds by constraint, and a transaction that fails leaves nothing.
const server: PostgresServer = await startPostgres();

const engines: StoreEngine<PgHandle>[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});
async function freshEngine(): Promise<StoreEngine<PgHandle>> {
  const engine = await openPostgresEngine({ url: await server.createDatabase() });
  engines.push(engine);
  return engine;
}

describe('PostgreSQL repositories', () => {
  it('give back invoices, merchants and events exactly as stored: money as text, times and network ids as numbers', async () => {
    const engine = await freshEngine();
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    const invoice = await seedInvoice(engine, merchant, { expires_at: 9_007_199_254_740_000 });
    const { seq, ...stored } = (await repos.invoices.findInvoice(db, invoice.id))!;
    expect(stored).toEqual({ ...invoice, pending_payments: 0 });
    expect(typeof seq).toBe('number');
    expect(await repos.merchants.findMerchant(db, merchant.id)).toEqual({ ...merchant, seq: expect.any(Number) });
    expect(await repos.events.eventsOfInvoice(db, invoice.id)).toEqual([{ ...eventRow(invoice, 1), seq: expect.any(Number) }]);
    expect(await repos.invoices.findInvoice(db, 'missing')).toBeUndefined();
    expect(await repos.partners.findPartner(db, merchant.partner_id)).toEqual({ id: merchant.partner_id, name: 'Partner', created_at: T0 });
  });

  it('list newest first, one extra row telling there is more, and page by seq', async () => {
    const engine = await freshEngine();
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await seedInvoice(engine, merchant, { status: i % 2 ? 'PAID' : 'CREATED' })).id);
    const filter = { partnerId: merchant.partner_id, environment: 'test' as const };
    const first = await repos.invoices.listInvoices(db, filter, { limit: 2 });
    expect(first.map((r) => r.id)).toEqual([ids[4], ids[3], ids[2]]);
    const next = await repos.invoices.listInvoices(db, filter, { limit: 2, beforeSeq: first[1]!.seq });
    expect(next.map((r) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await repos.invoices.listInvoices(db, { ...filter, merchantId: merchant.id, status: 'PAID' }, { limit: 10 })).map((r) => r.id)).toEqual([
      ids[3],
      ids[1],
    ]);
    expect(await repos.invoices.listInvoices(db, { ...filter, status: 'NOT_A_STATUS' }, { limit: 10 })).toEqual([]);
    expect(await repos.invoices.listInvoices(db, { ...filter, environment: 'live' }, { limit: 10 })).toEqual([]);
    expect((await repos.merchants.listMerchants(db, merchant.partner_id, 'test', { limit: 10 })).map((m) => m.id)).toEqual([merchant.id]);
  });

  it('leave no row of a transaction that fails: not the invoice, not its event', async () => {
    const engine = await freshEngine();
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    const invoice = invoiceRow(merchant);
    await expect(
      engine.transaction(async (tx) => {
        await repos.invoices.insertInvoice(tx, invoice);
        await repos.events.insertEvent(tx, eventRow(invoice, 1));
        throw new Error('the handler failed after writing');
      }),
    ).rejects.toThrow('the handler failed after writing');
    expect(await repos.invoices.findInvoice(db, invoice.id)).toBeUndefined();
    expect(await repos.events.findEvent(db, `${invoice.id}-1`)).toBeUndefined();
    // A statement the database refuses (a duplicate event id) undoes the invoice written before it.
    const other = invoiceRow(merchant);
    await seedInvoice(engine, merchant, { id: 'taken' });
    await expect(
      engine.transaction(async (tx) => {
        await repos.invoices.insertInvoice(tx, other);
        await repos.events.insertEvent(tx, { ...eventRow(other, 1), id: 'taken-1' });
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await repos.invoices.findInvoice(db, other.id)).toBeUndefined();
  });

  it('refuse a second merchant of the same tenant by constraint, as a conflict, keeping the first', async () => {
    const engine = await freshEngine();
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    expect(await repos.merchants.findMerchantIdByTenant(db, merchant.partner_id, 'test', merchant.external_tenant_id)).toBe(merchant.id);
    const twin = { ...merchant, id: 'twin' };
    const refused = await engine.transaction((tx) => repos.merchants.insertMerchant(tx, twin)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreConflictError);
    expect(refused).toMatchObject({ conflict: 'external_tenant_id' });
    expect(await repos.merchants.findMerchant(db, 'twin')).toBeUndefined();
    // The same tenant in the other environment is another merchant.
    await repos.merchants.insertMerchant(db, { ...merchant, id: 'live-twin', environment: 'live' });
    expect(await repos.merchants.findMerchantIdByTenant(db, merchant.partner_id, 'live', merchant.external_tenant_id)).toBe('live-twin');
  });

  it('update merchants, payments and invoice state as SQLite does', async () => {
    const engine = await freshEngine();
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    await repos.merchants.setIntegrationStatus(db, merchant.id, 'ACTIVE', T0 + 1);
    await repos.merchants.setMerchantNetworks(db, merchant.id, [1, 2494104990], T0 + 2);
    expect(await repos.merchants.findMerchant(db, merchant.id)).toMatchObject({
      integration_status: 'ACTIVE',
      network_ids: '[1,2494104990]',
      updated_at: T0 + 2,
    });

    const invoice = await seedInvoice(engine, merchant);
    const payment = { invoice_id: invoice.id, network_id: 2494104990, token: 'USDT', amount: '4.000001', tx_hash: '0xabc', created_at: T0 };
    await repos.payments.insertPayment(db, { ...payment, id: 'p1', confirmed: 0, confirmed_at: null });
    await repos.payments.insertPayment(db, { ...payment, id: 'p2', token: 'USDC', confirmed: 1, confirmed_at: T0 });
    expect((await repos.payments.pendingPaymentsOf(db, invoice.id)).map((p) => p.id)).toEqual(['p1']);
    expect(await repos.payments.lastConfirmedTokenOf(db, invoice.id)).toBe('USDC');
    expect(await repos.payments.markConfirmed(db, 'p1', T0 + 5)).toBe(true);
    expect(await repos.payments.markConfirmed(db, 'p1', T0 + 6)).toBe(false);
    expect(await repos.payments.findPayment(db, 'p1')).toMatchObject({ confirmed: 1, confirmed_at: T0 + 5, amount: '4.000001' });
    expect(await repos.payments.lastConfirmedTokenOf(db, invoice.id)).toBe('USDT');
    expect((await repos.payments.paymentsOf(db, invoice.id)).map((p) => p.id)).toEqual(['p1', 'p2']);

    await repos.invoices.saveInvoiceState(db, {
      id: invoice.id,
      status: 'PARTIALLY_PAID',
      amount_received: '8.000002',
      pending_payments: 0,
      expires_at: invoice.expires_at,
      last_sequence: 2,
      updated_at: T0 + 7,
    });
    expect(await repos.invoices.findInvoice(db, invoice.id)).toMatchObject({ status: 'PARTIALLY_PAID', amount_received: '8.000002', last_sequence: 2 });
  });

  it('find open invoices due for expiry, oldest first, and the next expiry', async () => {
    const engine = await freshEngine();
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    const late = await seedInvoice(engine, merchant, { expires_at: T0 + 20 });
    const early = await seedInvoice(engine, merchant, { expires_at: T0 + 10 });
    await seedInvoice(engine, merchant, { expires_at: T0 + 5, status: 'PAID' });
    await seedInvoice(engine, merchant, { expires_at: T0 + 30 });
    expect(await repos.invoices.nextExpiryAt(db)).toBe(T0 + 10);
    expect((await repos.invoices.invoicesDueForExpiry(db, T0 + 20, 10)).map((i) => i.id)).toEqual([early.id, late.id]);
    expect((await repos.invoices.invoicesDueForExpiry(db, T0 + 20, 1)).map((i) => i.id)).toEqual([early.id]);
  });

  it('remember idempotent responses until they expire, replace an expired one, and sweep', async () => {
    const engine = await freshEngine();
    const { idempotency } = engine.repos;
    const { db } = engine;
    const row = { scope: 's', fingerprint: 'f1', status: 201, response: '{"id":"a"}', created_at: T0, expires_at: T0 + 100 };
    await idempotency.rememberIdempotent(db, row);
    expect(await idempotency.findIdempotent(db, 's', T0 + 99)).toEqual(row);
    expect(await idempotency.findIdempotent(db, 's', T0 + 100)).toBeUndefined();
    // A live record is never overwritten: the second writer lost a race.
    await expect(idempotency.rememberIdempotent(db, { ...row, fingerprint: 'f2', created_at: T0 + 50 })).rejects.toBeInstanceOf(StoreConflictError);
    expect(await idempotency.findIdempotent(db, 's', T0 + 60)).toEqual(row);
    // An expired one (not swept yet) is replaced, as SQLite's upsert does.
    const again = { ...row, fingerprint: 'f3', created_at: T0 + 100, expires_at: T0 + 200 };
    await idempotency.rememberIdempotent(db, again);
    expect(await idempotency.findIdempotent(db, 's', T0 + 150)).toEqual(again);
    await idempotency.rememberIdempotent(db, { ...row, scope: 'old', expires_at: T0 + 10 });
    expect(await idempotency.sweepIdempotency(db, T0 + 150)).toBe(1);
    expect(await idempotency.sweepIdempotency(db, T0 + 150)).toBe(0);
  });

  it('store keys hashed, ignore a key stored twice, revoke, and keep meta and webhook configurations', async () => {
    const engine = await freshEngine();
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    const key = `pt_test_${'a'.repeat(32)}`;
    const owner = { partnerId: merchant.partner_id, merchantId: null };
    await repos.keys.insertKey(db, key, owner, T0);
    await repos.keys.insertKey(db, key, owner, T0 + 1);
    expect(await repos.keys.findKey(db, key)).toMatchObject({ kind: 'partner', environment: 'test', created_at: T0, merchant_id: null });
    expect(JSON.stringify(await repos.keys.listPartnerKeys(db, merchant.partner_id))).not.toContain(key);
    await repos.keys.deleteKey(db, key);
    expect(await repos.keys.findKey(db, key)).toBeUndefined();

    await repos.meta.setMeta(db, 'clock', 12.5);
    await repos.meta.setMeta(db, 'clock', T0);
    expect(await repos.meta.getMeta(db, 'clock', isFiniteNumber)).toBe(T0);
    await repos.meta.setMeta(db, 'odd', 'text');
    await expect(repos.meta.getMeta(db, 'odd', isFiniteNumber)).rejects.toThrow(/does not hold what svc stores/);
    expect(await repos.meta.getMeta(db, 'absent', isFiniteNumber)).toBeUndefined();

    const config = {
      id: 'w1',
      partner_id: merchant.partner_id,
      environment: 'test' as const,
      url: 'http://a',
      secret: 's'.repeat(16),
      custom_headers: '{}',
      enabled: 1,
      created_at: T0,
      updated_at: T0,
    };
    await repos.webhookConfigs.saveWebhookConfig(db, config);
    await repos.webhookConfigs.saveWebhookConfig(db, { ...config, id: 'w2', url: 'http://b', updated_at: T0 + 1 });
    expect(await repos.webhookConfigs.findWebhookConfig(db, merchant.partner_id, 'test')).toEqual({ ...config, url: 'http://b', updated_at: T0 + 1 });
    expect(await repos.webhookConfigs.findWebhookConfig(db, merchant.partner_id, 'live')).toBeUndefined();
  });

  it('claim due deliveries oldest first, at most perUrl per receiver counting busy ones, then record, release and list them', async () => {
    const engine = await freshEngine();
    const { repos, db } = engine;
    const merchant = await seedMerchant(engine);
    const invoice = await seedInvoice(engine, merchant);
    const event = `${invoice.id}-1`;
    const a = 'http://a/hook';
    const b = 'http://b/hook';
    const rows = [
      deliveryRow(event, invoice, { url: a, next_attempt_at: T0 + 1 }),
      deliveryRow(event, invoice, { url: a, next_attempt_at: T0 + 2 }),
      deliveryRow(event, invoice, { url: a, next_attempt_at: T0 + 3 }),
      deliveryRow(event, invoice, { url: b, next_attempt_at: T0 + 4 }),
      deliveryRow(event, invoice, { url: b, next_attempt_at: T0 + 50 }),
      deliveryRow(event, invoice, { url: b, next_attempt_at: T0 + 5, status: 'succeeded' }),
    ];
    for (const row of rows) await repos.deliveries.insertDelivery(db, row);
    expect(await repos.deliveries.nextDeliveryDueAt(db)).toBe(T0 + 1);
    expect(await repos.deliveries.nextDeliveryDueAfter(db, T0 + 4)).toBe(T0 + 50);

    // a's receiver has one running already (`busy` is by receiver: scheme, host and port): with
    // perUrl 2, one more of a; b is not due past T0+4 yet.
    const claimed = await repos.deliveries.claimDue(db, T0 + 10, 10, 2, new Map([['http://a', 1]]));
    expect(claimed.map((d) => d.id).sort()).toEqual([rows[0]!.id, rows[3]!.id].sort());
    expect(claimed.every((d) => d.in_flight === 1)).toBe(true);
    // a saturated: left out entirely.
    expect(await repos.deliveries.claimDue(db, T0 + 10, 10, 2, new Map([['http://a', 2]]))).toEqual([]);
    expect((await repos.deliveries.claimDueForUrl(db, a, T0 + 10, 1)).map((d) => d.id)).toEqual([rows[1]!.id]);
    expect(await repos.deliveries.nextDeliveryDueAt(db)).toBe(T0 + 3);

    await repos.deliveries.releaseDelivery(db, rows[1]!.id);
    expect((await repos.deliveries.findDelivery(db, rows[1]!.id))!.in_flight).toBe(0);
    expect(await repos.deliveries.releaseInFlight(db)).toBe(2);

    await engine.transaction((tx) =>
      repos.deliveries.recordAttempt(
        tx,
        {
          delivery_id: rows[0]!.id,
          number: 1,
          trigger: 'scheduled',
          url: a,
          started_at: T0 + 10,
          duration_ms: 7,
          response_status: 500,
          response_body: 'no',
          error: null,
          chaos: null,
        },
        {
          id: rows[0]!.id,
          url: a,
          status: 'retrying',
          attempt_count: 1,
          scheduled_attempts: 1,
          in_flight: 0,
          last_attempt_at: T0 + 10,
          next_attempt_at: T0 + 5010,
          last_response_status: 500,
          last_error: 'HTTP 500',
          updated_at: T0 + 10,
        },
      ),
    );
    expect(await repos.deliveries.attemptsOfDelivery(db, rows[0]!.id)).toEqual([
      expect.objectContaining({ number: 1, response_status: 500, duration_ms: 7, id: expect.any(Number) }),
    ]);
    expect(await repos.deliveries.findDelivery(db, rows[0]!.id)).toMatchObject({ status: 'retrying', next_attempt_at: T0 + 5010, last_error: 'HTTP 500' });

    const filter = { partnerId: merchant.partner_id, environment: 'test' as const };
    expect((await repos.deliveries.listDeliveries(db, { ...filter, status: 'retrying' }, { limit: 10 })).map((d) => d.id)).toEqual([rows[0]!.id]);
    expect(await repos.deliveries.listDeliveries(db, { ...filter, status: 'bogus' }, { limit: 10 })).toEqual([]);
    const page = await repos.deliveries.listDeliveries(db, filter, { limit: 2 });
    expect(page.map((d) => d.id)).toEqual([rows[5]!.id, rows[4]!.id, rows[3]!.id]);
  });
});
