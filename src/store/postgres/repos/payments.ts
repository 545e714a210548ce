import { type Insertable, sql } from 'kysely';
import type { PaymentRow } from '../../repos/payments.js';
import type { PaymentsTable } from '../../schema.js';
import { holdsNul, type PgHandle, touched } from './handle.js';

// PostgreSQL's payments: the same functions as ../../repos/payments.ts. Amounts are text as sent.

export async function insertPayment(db: PgHandle, row: Omit<Insertable<PaymentsTable>, 'seq'>): Promise<void> {
  await db.insertInto('payments').values(row).execute();
}

export async function findPayment(db: PgHandle, id: string): Promise<PaymentRow | undefined> {
  if (holdsNul(id)) return undefined;
  return db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks a payment confirmed; false when it already was (of two concurrent confirms, one wins). */
export async function markConfirmed(db: PgHandle, id: string, now: number): Promise<boolean> {
  const result = await db.updateTable('payments').set({ confirmed: 1, confirmed_at: now }).where('id', '=', id).where('confirmed', '=', 0).executeTakeFirst();
  return touched(result) === 1;
}

/** The token of the latest confirmed payment: what an expiry after payments reports. */
export async function lastConfirmedTokenOf(db: PgHandle, invoiceId: string): Promise<string | null> {
  const row = await db
    .selectFrom('payments')
    .select('token')
    .where('invoice_id', '=', invoiceId)
    .where('confirmed', '=', 1)
    .orderBy('confirmed_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.token ?? null;
}

/**
 * lastConfirmedTokenOf for each of `invoiceIds` in one statement (an expiry's batch: one round trip
 * instead of one per invoice), in the same order: the latest by confirmed_at, then seq.
 */
export async function lastConfirmedTokensOf(db: PgHandle, invoiceIds: readonly string[]): Promise<Map<string, string | null>> {
  const tokens = new Map<string, string | null>(invoiceIds.map((id) => [id, null]));
  if (invoiceIds.length === 0) return tokens;
  const rows = await db
    .selectFrom('payments')
    .distinctOn('invoice_id')
    .select(['invoice_id', 'token'])
    .where(sql<boolean>`invoice_id = any(${[...invoiceIds]}::text[])`)
    .where('confirmed', '=', 1)
    .orderBy('invoice_id')
    .orderBy('confirmed_at', 'desc')
    .orderBy('seq', 'desc')
    .execute();
  for (const row of rows) tokens.set(row.invoice_id, row.token);
  return tokens;
}

/** Payments seen but not confirmed yet, oldest first. */
export async function pendingPaymentsOf(db: PgHandle, invoiceId: string): Promise<PaymentRow[]> {
  return db.selectFrom('payments').selectAll().where('invoice_id', '=', invoiceId).where('confirmed', '=', 0).orderBy('seq').execute();
}

/** Every payment of an invoice, confirmed or not, in the order they were seen. */
export async function paymentsOf(db: PgHandle, invoiceId: string): Promise<PaymentRow[]> {
  return db.selectFrom('payments').selectAll().where('invoice_id', '=', invoiceId).orderBy('seq').execute();
}
