import { INVOICE_STATUSES } from '../../../contract/enums.js';
import type { InvoiceFilter, InvoiceRow, InvoiceStateUpdate, NewInvoice } from '../../repos/invoices.js';
import type { ListPage } from '../../repos/merchants.js';
import { sql } from 'kysely';
import { deferWrite } from '../deferred-writes.js';
import { holdsNul, oneOf, type PgHandle } from './handle.js';
import { insertOne } from './insert-one.js';

// PostgreSQL's invoices: the same functions as ../../repos/invoices.ts.

/** Deferred (deferred-writes.ts): in a create it goes with the statement after it. */
export async function insertInvoice(db: PgHandle, row: NewInvoice): Promise<void> {
  await deferWrite(db, insertOne('invoices', row), row.id);
}

/**
 * Any invoice by id; callers check the owner and answer 404 when it is not theirs. Inside a
 * transaction the row is locked (`FOR UPDATE`) until it ends: a transaction reads an invoice to
 * change it (a payment, a confirmation, an expiry), and SQLite runs those one at a time. Without
 * the lock, two concurrent payments would both read the same amount and sequence, and one state
 * change would be lost (or refused by the events' unique id). Outside one, a plain read.
 */
export async function findInvoice(db: PgHandle, id: string): Promise<InvoiceRow | undefined> {
  if (holdsNul(id)) return undefined;
  const q = db.selectFrom('invoices').selectAll().where('id', '=', id);
  return (db.isTransaction ? q.forUpdate() : q).executeTakeFirst();
}

/**
 * Invoices by id, in any order, those that exist: the pool's batched reads (read-batch.ts). One text
 * for any number of ids (an array parameter), so the connection prepares it once. An id holding
 * U+0000 is left out (holdsNul): it would fail the statement, and with it every read sent together.
 */
export async function invoicesById(db: PgHandle, ids: readonly string[]): Promise<InvoiceRow[]> {
  const asked = ids.filter((id) => !holdsNul(id));
  if (!asked.length) return [];
  const { rows } = await sql<InvoiceRow>`select * from invoices where id = any(${asked}::text[])`.execute(db);
  return rows;
}

export async function listInvoices(db: PgHandle, filter: InvoiceFilter, page: ListPage): Promise<InvoiceRow[]> {
  // A status outside the closed list matches no row, as SQLite's comparison finds none.
  const status = filter.status ? INVOICE_STATUSES.find((s) => s === filter.status) : undefined;
  if (filter.status && !status) return [];
  let q = db.selectFrom('invoices').selectAll();
  // Each branch matches one of the two indexes, (merchant_id, seq) or (partner_id, environment, seq).
  if (filter.merchantId) q = q.where('merchant_id', '=', filter.merchantId);
  else q = q.where('partner_id', '=', filter.partnerId).where('environment', '=', filter.environment);
  if (status) q = q.where('status', '=', status);
  if (page.beforeSeq !== undefined) q = q.where('seq', '<', page.beforeSeq);
  return q
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .execute();
}

export async function saveInvoiceState(db: PgHandle, update: InvoiceStateUpdate): Promise<void> {
  const { id, ...state } = update;
  // Deferred (deferred-writes.ts): an expiry's or a payment's new state goes with the next statement.
  await deferWrite(
    db,
    db
      .updateTable('invoices')
      .set({ ...state, status: oneOf(INVOICE_STATUSES, state.status, 'invoice status') })
      .where('id', '=', id),
    id,
  );
}

/**
 * Open invoices whose expiresAt has passed, oldest first: the same terms as the partial index
 * invoices_open_expiry's predicate, which the planner matches against the values of each call.
 * In a transaction (expireDue's), locked: a replica expiring at the same time waits for the rows the
 * first one holds, and PostgreSQL checks them again once it committed (READ COMMITTED), so an invoice
 * just expired no longer matches and records one `invoice.expired` (CONTRACT §12). Not SKIP LOCKED:
 * an advance loops until nothing is due, and would spin on a row it skipped instead of waiting.
 */
export async function invoicesDueForExpiry(db: PgHandle, now: number, limit: number): Promise<InvoiceRow[]> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('status', 'in', ['CREATED', 'PARTIALLY_PAID'])
    .where('pending_payments', '=', 0)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .$if(db.isTransaction, (q) => q.forUpdate())
    .execute();
}

/** When the next open invoice expires, or null. */
export async function nextExpiryAt(db: PgHandle): Promise<number | null> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.min('expires_at').as('at'))
    .where('status', 'in', ['CREATED', 'PARTIALLY_PAID'])
    .where('pending_payments', '=', 0)
    .executeTakeFirst();
  return row?.at ?? null;
}
