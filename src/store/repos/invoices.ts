import type { Environment } from '../../domain/environment.js';
import { dynamic, param, prepared, qb } from '../query.js';
import type { InvoicesTable } from '../schema.js';
import type { Store } from '../store.js';
import type { ListPage } from './merchants.js';

export type InvoiceRow = Omit<InvoicesTable, 'seq'> & { seq: number };
export type NewInvoice = Omit<InvoicesTable, 'seq'>;

const insert = prepared(() =>
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
const byId = prepared(() => qb.selectFrom('invoices').selectAll().where('id', '=', param('id')));

export function insertInvoice(store: Store, row: NewInvoice): void {
  insert.run(store, { ...row });
}

/** Any invoice by id; callers check the owner and answer 404 when it is not theirs. */
export function findInvoice(store: Store, id: string): InvoiceRow | undefined {
  return byId.get(store, { id }) as InvoiceRow | undefined;
}

export interface InvoiceFilter {
  partnerId: string;
  environment: Environment;
  merchantId?: string;
  status?: string;
}

export function listInvoices(store: Store, filter: InvoiceFilter, page: ListPage): InvoiceRow[] {
  let q = qb.selectFrom('invoices').selectAll();
  // Each branch matches one of the two indexes, (merchant_id, seq) or (partner_id, environment, seq).
  if (filter.merchantId) q = q.where('merchant_id', '=', filter.merchantId);
  else q = q.where('partner_id', '=', filter.partnerId).where('environment', '=', filter.environment);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (page.beforeSeq !== undefined) q = q.where('seq', '<', page.beforeSeq);
  return dynamic(store, q.orderBy('seq', 'desc').limit(page.limit + 1)) as InvoiceRow[];
}
