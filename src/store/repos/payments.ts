import type { Insertable, Selectable } from 'kysely';
import type { Runner } from '../engine.js';
import { param, prepared } from '../query.js';
import type { PaymentsTable } from '../schema.js';
import { holdsNul } from './lookups.js';

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

/** Amounts are text exactly as sent ("10.00" stays "10.00"). */
export async function insertPayment(db: Runner, row: Omit<Insertable<PaymentsTable>, 'seq'>): Promise<void> {
  await db.run(insert, { ...row });
}

export async function findPayment(db: Runner, id: string): Promise<PaymentRow | undefined> {
  if (holdsNul(id)) return undefined;
  return db.get(byId, { id });
}

/** Marks a payment confirmed; false when it already was (of two concurrent confirms, one wins). */
export async function markConfirmed(db: Runner, id: string, now: number): Promise<boolean> {
  return (await db.run(confirm, { id, now })) === 1;
}

/** The token of the latest confirmed payment: what an expiry after payments reports. */
export async function lastConfirmedTokenOf(db: Runner, invoiceId: string): Promise<string | null> {
  return (await db.get(lastConfirmedToken, { invoice_id: invoiceId }))?.token ?? null;
}

/** lastConfirmedTokenOf for each of `invoiceIds` (an expiry's batch): invoice id → token or null. */
export async function lastConfirmedTokensOf(db: Runner, invoiceIds: readonly string[]): Promise<Map<string, string | null>> {
  if (db.own.batch) return db.own.batch.lastConfirmedTokensOf(invoiceIds);
  const tokens = new Map<string, string | null>();
  for (const id of invoiceIds) tokens.set(id, await lastConfirmedTokenOf(db, id));
  return tokens;
}

const pendingOf = prepared((qb) =>
  qb.selectFrom('payments').selectAll().where('invoice_id', '=', param('invoice_id')).where('confirmed', '=', 0).orderBy('seq'),
);

/** Payments seen but not confirmed yet, oldest first. */
export async function pendingPaymentsOf(db: Runner, invoiceId: string): Promise<PaymentRow[]> {
  return db.all(pendingOf, { invoice_id: invoiceId });
}

const allOf = prepared((qb) => qb.selectFrom('payments').selectAll().where('invoice_id', '=', param('invoice_id')).orderBy('seq'));

/** Every payment of an invoice, confirmed or not, in the order they were seen. */
export async function paymentsOf(db: Runner, invoiceId: string): Promise<PaymentRow[]> {
  return db.all(allOf, { invoice_id: invoiceId });
}
