import type { Insertable, Selectable } from 'kysely';
import type { Environment } from '../../domain/environment.js';
import type { Runner } from '../engine.js';
import { OPEN_INVOICE, param, prepared, preparedByShape } from '../query.js';
import type { InvoicesTable } from '../schema.js';
import { holdsNul } from './lookups.js';
import type { ListPage } from './merchants.js';

export type InvoiceRow = Selectable<InvoicesTable>;
export type NewInvoice = Omit<Insertable<InvoicesTable>, 'seq' | 'pending_payments'>;

const insert = prepared((qb) =>
  qb.insertInto('invoices').values({
    id: param('id'),
    merchant_id: param('merchant_id'),
    partner_id: param('partner_id'),
    environment: param('environment'),
    status: param('status'),
    amount: param('amount'),
    amount_received: param('amount_received'),
    reference_id: param('reference_id'),
    lock_network_id: param('lock_network_id'),
    lock_token: param('lock_token'),
    addresses: param('addresses'),
    expires_at: param('expires_at'),
    created_at: param('created_at'),
    updated_at: param('updated_at'),
    last_sequence: param('last_sequence'),
  }),
);
const byId = prepared((qb) => qb.selectFrom('invoices').selectAll().where('id', '=', param('id')));
const byIdLocked = prepared((qb) => qb.selectFrom('invoices').selectAll().where('id', '=', param('id')).forUpdate());

export async function insertInvoice(db: Runner, row: NewInvoice): Promise<void> {
  await db.run(insert, { ...row });
}

/**
 * Any invoice by id; callers check the owner and answer 404 when it is not theirs. Where
 * transactions run side by side (PostgreSQL), a transaction's read locks the row until it ends: a
 * transaction reads an invoice to change it (a payment, a confirmation, an expiry), and without the
 * lock two concurrent payments would both read the same amount and sequence, and one state change
 * would be lost. SQLite runs those one at a time.
 */
export async function findInvoice(db: Runner, id: string): Promise<InvoiceRow | undefined> {
  if (holdsNul(id)) return undefined;
  return db.get(db.locksRows ? byIdLocked : byId, { id });
}

export interface InvoiceFilter {
  partnerId: string;
  environment: Environment;
  merchantId?: string;
  status?: string;
}

const list = preparedByShape(['merchant', 'status', 'before'], (qb, on) => {
  let q = qb.selectFrom('invoices').selectAll();
  // Each branch matches one of the two indexes, (merchant_id, seq) or (partner_id, environment, seq).
  if (on.merchant) q = q.where('merchant_id', '=', param('merchant_id'));
  else q = q.where('partner_id', '=', param('partner_id')).where('environment', '=', param('environment'));
  if (on.status) q = q.where('status', '=', param('status'));
  if (on.before) q = q.where('seq', '<', param('before_seq'));
  return q.orderBy('seq', 'desc').limit(param('limit'));
});

export async function listInvoices(db: Runner, filter: InvoiceFilter, page: ListPage): Promise<InvoiceRow[]> {
  const shape = { merchant: Boolean(filter.merchantId), status: Boolean(filter.status), before: page.beforeSeq !== undefined };
  return db.all(list.shape(shape), {
    merchant_id: filter.merchantId,
    partner_id: filter.partnerId,
    environment: filter.environment,
    status: filter.status,
    before_seq: page.beforeSeq,
    limit: page.limit + 1,
  });
}

const saveState = prepared((qb) =>
  qb
    .updateTable('invoices')
    .set({
      status: param('status'),
      amount_received: param('amount_received'),
      pending_payments: param('pending_payments'),
      expires_at: param('expires_at'),
      last_sequence: param('last_sequence'),
      updated_at: param('updated_at'),
    })
    .where('id', '=', param('id')),
);

export interface InvoiceStateUpdate {
  id: string;
  status: string;
  amount_received: string;
  pending_payments: number;
  expires_at: number;
  last_sequence: number;
  updated_at: number;
}

export async function saveInvoiceState(db: Runner, update: InvoiceStateUpdate): Promise<void> {
  await db.run(saveState, { ...update });
}

const dueForExpiry = prepared((qb) =>
  qb.selectFrom('invoices').selectAll().where(OPEN_INVOICE).where('expires_at', '<=', param('now')).orderBy('expires_at').limit(param('limit')),
);
const dueForExpiryLocked = prepared((qb) =>
  qb.selectFrom('invoices').selectAll().where(OPEN_INVOICE).where('expires_at', '<=', param('now')).orderBy('expires_at').limit(param('limit')).forUpdate(),
);
const nextExpiry = prepared((qb) =>
  qb
    .selectFrom('invoices')
    .select((eb) => eb.fn.min('expires_at').as('at'))
    .where(OPEN_INVOICE),
);

/**
 * Open invoices whose expiresAt has passed, oldest first (the partial expiry index's terms). Locked
 * where transactions run side by side: a replica expiring at the same time waits for the rows the
 * first one holds, and PostgreSQL checks them again once it committed (READ COMMITTED), so an invoice
 * just expired no longer matches and records one `invoice.expired` (CONTRACT §12). Not SKIP LOCKED:
 * an advance loops until nothing is due, and would spin on a row it skipped instead of waiting.
 */
export async function invoicesDueForExpiry(db: Runner, now: number, limit: number): Promise<InvoiceRow[]> {
  return db.all(db.locksRows ? dueForExpiryLocked : dueForExpiry, { now, limit });
}

/** When the next open invoice expires, or null. */
export async function nextExpiryAt(db: Runner): Promise<number | null> {
  return (await db.get(nextExpiry))?.at ?? null;
}
