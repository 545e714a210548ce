import type { InvoiceEventType, InvoiceStatus } from '../contract/enums.js';
import { addAmounts, compareAmounts, formatReceived } from './money.js';

/**
 * The invoice state machine of CONTRACT §3–4, as pure functions: given an invoice's state and what
 * happened, the new state and the events, in order. Persistence and delivery live elsewhere.
 *
 * `amountReceived` is the sum of confirmed payments. `pending` counts payments seen but not yet
 * confirmed; while one is pending the invoice does not expire (CONTRACT §3: "a CONFIRMING invoice
 * does not expire while its payment confirms"), whatever its status.
 */
export interface InvoiceState {
  status: InvoiceStatus;
  amount: string;
  amountReceived: string;
  pending: number;
  expiresAt: number;
}

export interface StateEvent {
  type: InvoiceEventType;
  /** Symbol of the payment that caused the event; null when none did. */
  token: string | null;
  /** The invoice as the event reports it: its status and amountReceived right after the event. */
  status: InvoiceStatus;
  amountReceived: string;
}

export interface Transition {
  state: InvoiceState;
  events: StateEvent[];
}

const OPEN: readonly InvoiceStatus[] = ['CREATED', 'PARTIALLY_PAID'];

/** Whether the invoice should expire at `now` (the scheduler's and every operation's first check). */
export function isExpiryDue(s: InvoiceState, now: number): boolean {
  return OPEN.includes(s.status) && s.pending === 0 && now >= s.expiresAt;
}

/** Applies a due expiry, if any: every operation starts with this, so late payments are late. */
export function catchUpExpiry(s: InvoiceState, now: number, lastToken: string | null): Transition {
  if (!isExpiryDue(s, now)) return { state: s, events: [] };
  const state: InvoiceState = { ...s, status: 'EXPIRED' };
  return { state, events: [event('invoice.expired', lastToken, state)] };
}

function event(type: InvoiceEventType, token: string | null, s: InvoiceState): StateEvent {
  return { type, token, status: s.status, amountReceived: s.amountReceived };
}

/**
 * A payment is seen on chain but not confirmed: CREATED or PARTIALLY_PAID (or CONFIRMING again) →
 * CONFIRMING with `invoice.payment_detected`. PAID and EXPIRED invoices only count it as pending.
 */
export function detectPayment(s0: InvoiceState, now: number, token: string, lastToken: string | null): Transition {
  const { state: s, events } = catchUpExpiry(s0, now, lastToken);
  const pending = s.pending + 1;
  if (s.status === 'PAID' || s.status === 'EXPIRED') return { state: { ...s, pending }, events };
  const state: InvoiceState = { ...s, status: 'CONFIRMING', pending };
  return { state, events: [...events, event('invoice.payment_detected', token, state)] };
}

/**
 * A payment of `amount` confirms (`wasPending`: it had been detected before). The confirmed total
 * decides: at or above `amount` → PAID (`invoice.paid`, then `invoice.overpaid` when above); below →
 * PARTIALLY_PAID, or EXPIRED when `expiresAt` has passed and nothing else is confirming. A PAID
 * invoice stays PAID (`invoice.overpaid`); an EXPIRED one stays EXPIRED (`invoice.paid_late`).
 */
export function confirmPayment(
  s0: InvoiceState,
  now: number,
  payment: { amount: string; token: string; wasPending: boolean },
  lastToken: string | null,
): Transition {
  const { state: s, events } = catchUpExpiry(s0, now, lastToken);
  const total = addAmounts(s.amountReceived, payment.amount);
  const next: InvoiceState = {
    ...s,
    amountReceived: formatReceived(s.amount, total),
    pending: payment.wasPending ? Math.max(0, s.pending - 1) : s.pending,
  };
  const token = payment.token;
  const to = (status: InvoiceStatus, ...types: InvoiceEventType[]): Transition => {
    const state = { ...next, status };
    return { state, events: [...events, ...types.map((t) => event(t, token, state))] };
  };
  if (s.status === 'PAID') return to('PAID', 'invoice.overpaid');
  if (s.status === 'EXPIRED') return to('EXPIRED', 'invoice.paid_late');

  const cmp = compareAmounts(total, s.amount);
  if (cmp > 0) return to('PAID', 'invoice.paid', 'invoice.overpaid');
  if (cmp === 0) return to('PAID', 'invoice.paid');
  if (now >= s.expiresAt && next.pending === 0) return to('EXPIRED', 'invoice.expired');
  return to('PARTIALLY_PAID', 'invoice.partially_paid');
}

export type ForcedExpiry = Transition | { refused: 'not_expirable' };

/**
 * The test helper's "expire now". PAID and EXPIRED cannot expire. With a payment still confirming,
 * `expiresAt` moves to now and the invoice expires if that payment leaves it short.
 */
export function expireNow(s: InvoiceState, now: number, lastToken: string | null): ForcedExpiry {
  if (s.status === 'PAID' || s.status === 'EXPIRED') return { refused: 'not_expirable' };
  const moved = { ...s, expiresAt: Math.min(s.expiresAt, now) };
  if (s.pending > 0) return { state: moved, events: [] };
  const state: InvoiceState = { ...moved, status: 'EXPIRED' };
  return { state, events: [event('invoice.expired', lastToken, state)] };
}
