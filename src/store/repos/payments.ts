import type { Insertable, Selectable } from 'kysely';
import { param, prepared } from '../query.js';
import type { PaymentsTable } from '../schema.js';
import type { Store } from '../sqlite/store.js';

export type PaymentRow = Selectable<PaymentsTable>;

const insert = prepared((qb) =>
  qb.insertInto('payments').values({
    id: param('id'),
    invoice_id: param('invoice_id'),
    network_id: param('network_id'),
    token: param('token'),
    amount: param('amount'),
    tx_hash: param('tx_hash'),
    confirmed: param('confirmed'),
    created_at: param('created_at'),
    confirmed_at: param('confirmed_at'),
  }),
);
const byId = prepared((qb) => qb.selectFrom('payments').selectAll().where('id', '=', param('id')));
const confirm = prepared((qb) =>
  qb
    .updateTable('payments')
    .set({ confirmed: 1, confirmed_at: param('now') })
    .where('id', '=', param('id'))
    .where('confirmed', '=', 0),
);
const lastConfirmedToken = prepared((qb) =>
  qb
    .selectFrom('payments')
    .select('token')
    .where('invoice_id', '=', param('invoice_id'))
    .where('confirmed', '=', 1)
    .orderBy('confirmed_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(1),
);

export function insertPayment(store: Store, row: Omit<Insertable<PaymentsTable>, 'seq'>): void {
  insert.run(store, { ...row });
}

export function findPayment(store: Store, id: string): PaymentRow | undefined {
  return byId.get(store, { id });
}

/** Marks a payment confirmed; false when it already was. */
export function markConfirmed(store: Store, id: string, now: number): boolean {
  return confirm.run(store, { id, now }).changes === 1;
}

/** The token of the latest confirmed payment: what an expiry after payments reports. */
export function lastConfirmedTokenOf(store: Store, invoiceId: string): string | null {
  return lastConfirmedToken.get(store, { invoice_id: invoiceId })?.token ?? null;
}

/** lastConfirmedTokenOf for each of `invoiceIds` (an expiry's batch): invoice id → token or null. */
export function lastConfirmedTokensOf(store: Store, invoiceIds: readonly string[]): Map<string, string | null> {
  return new Map(invoiceIds.map((id) => [id, lastConfirmedTokenOf(store, id)]));
}

const pendingOf = prepared((qb) =>
  qb.selectFrom('payments').selectAll().where('invoice_id', '=', param('invoice_id')).where('confirmed', '=', 0).orderBy('seq'),
);

/** Payments seen but not confirmed yet, oldest first. */
export function pendingPaymentsOf(store: Store, invoiceId: string): PaymentRow[] {
  return pendingOf.all(store, { invoice_id: invoiceId });
}

const allOf = prepared((qb) => qb.selectFrom('payments').selectAll().where('invoice_id', '=', param('invoice_id')).orderBy('seq'));

/** Every payment of an invoice, confirmed or not, in the order they were seen. */
export function paymentsOf(store: Store, invoiceId: string): PaymentRow[] {
  return allOf.all(store, { invoice_id: invoiceId });
}
