import type { Random } from '../../domain/random.js';
import { base58 } from '@scure/base';
import {
  confirmPayment as confirmTransition,
  detectPayment,
  expireNow,
  isExpiryDue,
  catchUpExpiry,
  type InvoiceState,
  type Transition,
} from '../../domain/invoice-state.js';
import { addAmounts, compareAmounts, remainingAmount } from '../../domain/money.js';
import type { DepositAddress } from '../../domain/addresses.js';
import { recordEvents, type RecordedEvent } from '../../webhooks/outbox.js';
import type { Repos, TransactionOptions, Tx } from '../../store/db.js';
import type { InvoiceRow } from '../../store/repos/invoices.js';
import type { PaymentRow } from '../../store/repos/payments.js';
import { ApiError } from '../api-error.js';
import type { AppDeps } from '../route.js';
import { parseDepositAddresses } from '../../store/json-columns.js';

export function stateOf(row: InvoiceRow): InvoiceState {
  return {
    status: row.status,
    amount: row.amount,
    amountReceived: row.amount_received,
    pending: row.pending_payments,
    expiresAt: row.expires_at,
  };
}

/** Saves a transition and its events in the caller's transaction `tx`; wakes the dispatcher. */
export async function applyTransition(
  tx: Tx,
  deps: AppDeps,
  row: InvoiceRow,
  t: Transition,
  now: number,
): Promise<{ invoice: InvoiceRow; events: RecordedEvent[] }> {
  const { lastSequence, recorded } = await recordEvents(tx, row, t.events, now, deps.random, deps.runtime.extraTargets);
  const state = {
    status: t.state.status,
    amount_received: t.state.amountReceived,
    pending_payments: t.state.pending,
    expires_at: t.state.expiresAt,
    last_sequence: lastSequence,
    updated_at: t.events.length || t.state.expiresAt !== row.expires_at ? now : row.updated_at,
  };
  await tx.invoices.saveInvoiceState({ id: row.id, ...state });
  // After the commit, as in createInvoice: a claim on another connection must see the deliveries.
  if (recorded.some((e) => e.deliveries > 0)) tx.afterCommit(() => deps.runtime.schedule(now));
  // The row as saved, not read back: the update sets exactly these columns (no trigger, no default).
  // On PostgreSQL a read back was a round trip per expiry, and sent the deferred writes before it.
  return { invoice: { ...row, ...state }, events: recorded };
}

export interface PaymentInput {
  amount?: string | undefined;
  token?: string | undefined;
  networkId?: number | undefined;
  confirmed?: boolean | undefined;
  txHash?: string | undefined;
}

/**
 * A simulated payment (CONTRACT §6): by default the remaining amount on the invoice's first allowed
 * route, confirmed. A confirmed payment emits no `invoice.payment_detected`.
 */
export function addPayment(deps: AppDeps, invoice: InvoiceRow, input: PaymentInput): Promise<{ payment: PaymentRow; invoice: InvoiceRow }> {
  return deps.db.transaction((tx) => addPaymentIn(tx, deps, invoice.id, input));
}

/**
 * `addPayment` in the caller's transaction: the local chains' watcher (src/server/chains/) records
 * the transfer a payment comes from in the same one (CONTRACT §14, credited once).
 */
export async function addPaymentIn(tx: Tx, deps: AppDeps, invoiceId: string, input: PaymentInput): Promise<{ payment: PaymentRow; invoice: InvoiceRow }> {
  const row = (await tx.invoices.findInvoice(invoiceId))!;
  const now = deps.clock.now();
  const route = chooseRoute(row, input.networkId, input.token);
  const amount = input.amount ?? (await defaultAmount(tx, row));
  const confirmed = input.confirmed ?? true;
  const id = deps.random.uuid();
  await tx.payments.insertPayment({
    id,
    invoice_id: row.id,
    network_id: route.networkId,
    token: route.token,
    amount,
    tx_hash: input.txHash ?? fakeTxHash(route.family, deps.random),
    confirmed: confirmed ? 1 : 0,
    created_at: now,
    confirmed_at: confirmed ? now : null,
  });
  const last = await tx.payments.lastConfirmedTokenOf(row.id);
  const t = confirmed
    ? confirmTransition(stateOf(row), now, { amount, token: route.token, wasPending: false }, last)
    : detectPayment(stateOf(row), now, route.token, last);
  const { invoice: updated } = await applyTransition(tx, deps, row, t, now);
  return { payment: (await tx.payments.findPayment(id))!, invoice: updated };
}

/** Confirms a payment seen earlier; 409 when it already is confirmed. */
export function confirmPendingPayment(deps: AppDeps, invoice: InvoiceRow, paymentId: string): Promise<{ payment: PaymentRow; invoice: InvoiceRow }> {
  return deps.db.transaction((tx) => confirmPaymentIn(tx, deps, invoice.id, paymentId));
}

/** `confirmPendingPayment` in the caller's transaction (the local chains' watcher, as `addPaymentIn`). */
export async function confirmPaymentIn(tx: Tx, deps: AppDeps, invoiceId: string, paymentId: string): Promise<{ payment: PaymentRow; invoice: InvoiceRow }> {
  const payment = await tx.payments.findPayment(paymentId);
  if (!payment || payment.invoice_id !== invoiceId) {
    throw new ApiError(404, 'payment_not_found', `No payment ${paymentId} on invoice ${invoiceId}.`);
  }
  const now = deps.clock.now();
  if (!(await tx.payments.markConfirmed(paymentId, now))) {
    throw new ApiError(409, 'payment_already_confirmed', `Payment ${paymentId} is already confirmed.`);
  }
  const row = (await tx.invoices.findInvoice(invoiceId))!;
  const last = await tx.payments.lastConfirmedTokenOf(row.id);
  const t = confirmTransition(stateOf(row), now, { amount: payment.amount, token: payment.token, wasPending: true }, last);
  const { invoice: updated } = await applyTransition(tx, deps, row, t, now);
  return { payment: (await tx.payments.findPayment(paymentId))!, invoice: updated };
}

/** The "expire now" test helper: 409 invoice_not_expirable when PAID or EXPIRED. */
export function expireInvoiceNow(deps: AppDeps, invoice: InvoiceRow): Promise<InvoiceRow> {
  return deps.db.transaction(async (tx) => {
    const row = (await tx.invoices.findInvoice(invoice.id))!;
    const now = deps.clock.now();
    const last = await tx.payments.lastConfirmedTokenOf(row.id);
    const result = expireNow(stateOf(row), now, last);
    if ('refused' in result) {
      throw new ApiError(409, 'invoice_not_expirable', `Invoice ${row.id} is ${row.status} and cannot expire.`);
    }
    return (await applyTransition(tx, deps, row, result, now)).invoice;
  });
}

/**
 * Expires every open invoice whose expiresAt has passed, in batches; resolves how many. `wait`
 * false: refuse at once when another program holds the write lock (the scheduler's timer).
 */
export async function expireDue(deps: AppDeps, now: number, wait = true): Promise<number> {
  const options: TransactionOptions = { wait };
  let total = 0;
  for (;;) {
    const batch = await deps.db.transaction(async (tx) => {
      const due = await tx.invoices.invoicesDueForExpiry(now, 200);
      const expiring = due.filter((row) => isExpiryDue(stateOf(row), now));
      // One read for the batch: where a statement is a round trip, the engine has it in one (store/engine.ts batch).
      const lastTokens = await tx.payments.lastConfirmedTokensOf(expiring.map((row) => row.id));
      for (const row of expiring) {
        await applyTransition(tx, deps, row, catchUpExpiry(stateOf(row), now, lastTokens.get(row.id) ?? null), now);
      }
      return due.length;
    }, options);
    total += batch;
    if (batch < 200) return total;
  }
}

interface Route {
  networkId: number;
  token: string;
  family: DepositAddress['family'];
}

/** A payment's route must be one the invoice offers (its lock, the merchant's chains). */
function chooseRoute(row: InvoiceRow, networkId?: number, token?: string): Route {
  const addresses = parseDepositAddresses(row.addresses);
  const candidates = addresses.filter(
    (a) => (networkId === undefined || a.networkId === networkId) && (token === undefined || a.tokens.some((t) => t.symbol === token)),
  );
  const chosen = candidates[0];
  if (!chosen) {
    const offered = addresses.map((a) => `${a.networkId} (${a.tokens.map((t) => t.symbol).join('/')})`).join(', ');
    throw new ApiError(
      400,
      'route_not_available',
      `This invoice accepts payments on: ${offered}.`,
      networkId !== undefined && !addresses.some((a) => a.networkId === networkId) ? 'networkId' : 'token',
    );
  }
  return { networkId: chosen.networkId, token: token ?? chosen.tokens[0]!.symbol, family: chosen.family };
}

/** What is left to pay once confirmed and still-confirming payments are counted. */
async function defaultAmount(tx: Repos, row: InvoiceRow): Promise<string> {
  const pending = (await tx.payments.pendingPaymentsOf(row.id)).reduce((sum, p) => addAmounts(sum, p.amount), '0');
  const left = remainingAmount(row.amount, addAmounts(row.amount_received, pending));
  if (compareAmounts(left, '0') <= 0) {
    throw new ApiError(400, 'validation_failed', `Invoice ${row.id} has nothing left to pay; pass an amount to pay more.`, 'amount');
  }
  return left;
}

function fakeTxHash(family: DepositAddress['family'], random: Random): string {
  if (family === 'solana') return base58.encode(random.bytes(64));
  const hex = random.bytes(32).toString('hex');
  return family === 'evm' ? `0x${hex}` : hex;
}
