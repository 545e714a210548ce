/**
 * A SQLite store with a row in every table (and several where order matters), every column set,
 * for the snapshot tests across engines (postgres-snapshots.test.ts): times beyond 2^32 ms, Tron
 * Shasta's network id beyond 2^31, money with six decimals, JSON whose key order must survive, seq
 * values with gaps (lists keep their order only if seq is kept), nulls beside empty strings.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { setMetaNow } from '../../src/store/sqlite/meta-now.js';
import type { Store } from '../../src/store/sqlite/store.js';
import { SNAPSHOT_TABLES } from '../../src/store/postgres/tables.js';
import { deliveryRow, eventRow, invoiceRow, merchantRow, T0 } from './store-rows.js';

function insert(db: BetterSqlite3.Database, table: string, row: Record<string, unknown>): void {
  const cols = Object.keys(row);
  db.prepare(`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(Object.values(row));
}

/** Seeds `store` (freshly migrated, empty) with every table populated, in one transaction. */
export function seedEveryTable(store: Store): void {
  const db = store.sqlite;
  const partnerId = 'a0000000-0000-4000-8000-000000000001';
  store.tx(() => {
    insert(db, 'partners', { id: partnerId, name: 'Partner ✓ "quoted"', created_at: T0 });
    insert(db, 'partners', { id: 'a0000000-0000-4000-8000-000000000002', name: '', created_at: T0 + 1 });
    const m1 = merchantRow(partnerId);
    const m2 = merchantRow(partnerId, { environment: 'live', network_ids: null, integration_status: 'ACTIVE' });
    insert(db, 'merchants', { seq: 3, ...m1 });
    insert(db, 'merchants', { seq: 7, ...m2 });
    insert(db, 'api_keys', {
      hash: 'h1',
      kind: 'partner',
      environment: 'test',
      partner_id: partnerId,
      merchant_id: null,
      hint: 'pt_test_ab…wxyz',
      created_at: T0,
    });
    insert(db, 'api_keys', {
      hash: 'h2',
      kind: 'merchant',
      environment: 'test',
      partner_id: partnerId,
      merchant_id: m1.id,
      hint: 'test_ab…wxyz',
      created_at: T0,
    });
    const i1 = invoiceRow(m1);
    const i2 = invoiceRow(m1, { reference_id: null, lock_network_id: null, lock_token: null, status: 'CONFIRMING', amount_received: '0.5' });
    insert(db, 'invoices', { seq: 10, ...i1, pending_payments: 0 });
    insert(db, 'invoices', { seq: 12, ...i2, pending_payments: 1 });
    insert(db, 'webhook_configs', {
      id: 'c0000000-0000-4000-8000-000000000001',
      partner_id: partnerId,
      environment: 'test',
      url: 'http://127.0.0.1:1/hook',
      secret: 'whsec_0123456789abcdef',
      custom_headers: '{"X-B":"1","X-A":"2"}',
      enabled: 1,
      created_at: T0,
      updated_at: T0 + 5,
    });
    insert(db, 'idempotency_keys', {
      scope: `${partnerId}|test|createInvoice|k1`,
      fingerprint: 'f1',
      status: 201,
      response: '{"id":"x","b":1,"a":2}',
      created_at: T0,
      expires_at: T0 + 86_400_000,
    });
    insert(db, 'payments', {
      seq: 4,
      id: 'd0000000-0000-4000-8000-000000000001',
      invoice_id: i1.id,
      network_id: 2494104990,
      token: 'USDT',
      amount: '10.000001',
      tx_hash: '0xabc',
      confirmed: 1,
      created_at: T0,
      confirmed_at: T0 + 1,
    });
    insert(db, 'payments', {
      seq: 9,
      id: 'd0000000-0000-4000-8000-000000000002',
      invoice_id: i2.id,
      network_id: 84532,
      token: 'USDC',
      amount: '0.5',
      tx_hash: '0xdef',
      confirmed: 0,
      created_at: T0 + 2,
      confirmed_at: null,
    });
    const e1 = eventRow(i1, 1);
    const e2 = { ...eventRow(i1, 2), type: 'invoice.paid' };
    const e3 = eventRow(i2, 1);
    insert(db, 'events', { seq: 20, ...e1 });
    insert(db, 'events', { seq: 21, ...e2 });
    insert(db, 'events', { seq: 25, ...e3 });
    const pending = deliveryRow(e1.id, i1);
    const retrying = deliveryRow(e2.id, i1, {
      url: 'http://b.example/hook',
      status: 'retrying',
      attempt_count: 1,
      scheduled_attempts: 1,
      last_attempt_at: T0 + 3,
      next_attempt_at: T0 + 300_000,
      last_response_status: 500,
      last_error: 'HTTP 500',
    });
    const succeeded = deliveryRow(e3.id, i2, {
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      last_attempt_at: T0 + 4,
      last_response_status: 200,
    });
    const toListener = deliveryRow(e3.id, i2, { target: 'listener', url: 'http://localhost:3000/hooks', in_flight: 1 });
    insert(db, 'deliveries', { seq: 30, ...pending });
    insert(db, 'deliveries', { seq: 31, ...retrying });
    insert(db, 'deliveries', { seq: 40, ...succeeded });
    insert(db, 'deliveries', { seq: 41, ...toListener });
    const attempt = { trigger: 'scheduled', started_at: T0 + 3, duration_ms: 12, error: null, chaos: null };
    insert(db, 'delivery_attempts', {
      id: 3,
      delivery_id: retrying.id,
      number: 1,
      url: retrying.url,
      response_status: 500,
      response_body: 'oops',
      ...attempt,
      chaos: 'duplicate',
    });
    insert(db, 'delivery_attempts', { id: 9, delivery_id: succeeded.id, number: 1, url: succeeded.url, response_status: 200, response_body: '', ...attempt });
    insert(db, 'delivery_attempts', {
      id: 11,
      delivery_id: retrying.id,
      number: 2,
      url: retrying.url,
      response_status: null,
      response_body: null,
      ...attempt,
      error: 'ECONNREFUSED',
    });
    insert(db, 'listeners', {
      partner_id: partnerId,
      environment: 'test',
      secret: 'whsec_listener0123456',
      events: '["invoice.paid"]',
      forward_to: 'http://localhost:3000/hooks',
      active: 1,
      created_at: T0,
      updated_at: T0,
    });
    // The local chains (CONTRACT §14): a chain's saved state, a credited transfer and one that credits nothing.
    insert(db, 'local_chains', { network_id: 84532, last_block: 7, state: '0x1f8b0800', updated_at: T0 + 3 });
    insert(db, 'chain_transfers', {
      id: 'f0000000-0000-4000-8000-000000000001',
      network_id: 84532,
      tx_hash: '0xdef',
      log_index: 0,
      block_number: 6,
      invoice_id: i2.id,
      contract_address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      token: 'USDC',
      sender: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      amount: '0.5',
      payment_id: 'd0000000-0000-4000-8000-000000000002',
      reason: null,
      created_at: T0 + 2,
    });
    insert(db, 'chain_transfers', {
      id: 'f0000000-0000-4000-8000-000000000002',
      network_id: 84532,
      tx_hash: '0xfff',
      log_index: 3,
      block_number: 7,
      invoice_id: i2.id,
      contract_address: '0x0000000000000000000000000000000000000001',
      token: null,
      sender: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      amount: '12',
      payment_id: null,
      reason: 'another token',
      created_at: T0 + 4,
    });
    setMetaNow(store.sqlite, 'test_entry', { b: 1, a: [1, 2], s: 'é' });
  });
}

/**
 * Every table's rows, ordered by primary key, each value beside its SQLite storage class (`typeof`):
 * an integer stored as a real, or a number stored as text, differs here though JavaScript would not tell.
 */
export function sqliteRows(db: BetterSqlite3.Database): Record<string, unknown[][]> {
  const out: Record<string, unknown[][]> = {};
  for (const table of SNAPSHOT_TABLES) {
    const cols = (db.pragma(`table_info("${table.name}")`) as { name: string }[]).map((c) => c.name);
    const select = cols.flatMap((c) => [`"${c}"`, `typeof("${c}")`]).join(', ');
    out[table.name] = db
      .prepare(`SELECT ${select} FROM "${table.name}" ORDER BY ${table.key.map((c) => `"${c}"`).join(', ')}`)
      .raw(true)
      .all() as unknown[][];
  }
  return out;
}
