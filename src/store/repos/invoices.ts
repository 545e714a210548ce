import type { Environment } from '../../domain/environment.js';
import { OPEN_INVOICE, param, prepared, preparedByShape } from '../query.js';
import type { Insertable, Selectable } from 'kysely';
import type { InvoicesTable } from '../schema.js';
import type { Store } from '../sqlite/store.js';
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

export function insertInvoice(store: Store, row: NewInvoice): void {
  insert.run(store, { ...row });
}

/** Any invoice by id; callers check the owner and answer 404 when it is not theirs. */
export function findInvoice(store: Store, id: string): InvoiceRow | undefined {
  return byId.get(store, { id });
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

export function listInvoices(store: Store, filter: InvoiceFilter, page: ListPage): InvoiceRow[] {
  const shape = { merchant: Boolean(filter.merchantId), status: Boolean(filter.status), before: page.beforeSeq !== undefined };
  return list.all(store, shape, {
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

export function saveInvoiceState(store: Store, update: InvoiceStateUpdate): void {
  saveState.run(store, { ...update });
}

const dueForExpiry = prepared((qb) =>
  qb.selectFrom('invoices').selectAll().where(OPEN_INVOICE).where('expires_at', '<=', param('now')).orderBy('expires_at').limit(param('limit')),
);
const nextExpiry = prepared((qb) =>
  qb
    .selectFrom('invoices')
    .select((eb) => eb.fn.min('expires_at').as('at'))
    .where(OPEN_INVOICE),
);

/** Open invoices whose expiresAt has passed, oldest first (uses the partial expiry index). */
export function invoicesDueForExpiry(store: Store, now: number, limit: number): InvoiceRow[] {
  return dueForExpiry.all(store, { now, limit });
}

/** When the next open invoice expires, or null. */
export function nextExpiryAt(store: Store): number | null {
  return nextExpiry.get(store)?.at ?? null;
}
