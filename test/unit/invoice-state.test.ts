import { describe, expect, it } from 'vitest';
import { catchUpExpiry, confirmPayment, detectPayment, expireNow, isExpiryDue, type InvoiceState } from '../../src/domain/invoice-state.js';

const T0 = 1_000_000;
const EXP = T0 + 3_600_000;
const fresh = (over: Partial<InvoiceState> = {}): InvoiceState => ({
  status: 'CREATED',
  amount: '10.00',
  amountReceived: '0.00',
  pending: 0,
  expiresAt: EXP,
  ...over,
});
const types = (t: { events: { type: string }[] }) => t.events.map((e) => e.type);
const confirm = (s: InvoiceState, amount: string, now = T0, wasPending = false) => confirmPayment(s, now, { amount, token: 'USDC', wasPending }, null);

describe('payments before expiry', () => {
  it('CREATED → PAID on a confirmed payment of the full amount', () => {
    const t = confirm(fresh(), '10.00');
    expect(t.state).toMatchObject({ status: 'PAID', amountReceived: '10.00' });
    expect(t.events).toEqual([{ type: 'invoice.paid', token: 'USDC', status: 'PAID', amountReceived: '10.00' }]);
  });

  it('CREATED → PARTIALLY_PAID → PAID: payments add up', () => {
    const a = confirm(fresh(), '4');
    expect(a.state).toMatchObject({ status: 'PARTIALLY_PAID', amountReceived: '4.00' });
    expect(types(a)).toEqual(['invoice.partially_paid']);
    const b = confirm(a.state, '6.00');
    expect(b.state).toMatchObject({ status: 'PAID', amountReceived: '10.00' });
    expect(types(b)).toEqual(['invoice.paid']);
  });

  it('overpayment: invoice.paid then invoice.overpaid, and amountReceived keeps the extra digits', () => {
    const t = confirm(fresh(), '10.005');
    expect(t.state).toMatchObject({ status: 'PAID', amountReceived: '10.005' });
    expect(types(t)).toEqual(['invoice.paid', 'invoice.overpaid']);
  });

  it('PAID is final: a later payment raises amountReceived with invoice.overpaid', () => {
    const paid = confirm(fresh(), '10').state;
    const t = confirm(paid, '1');
    expect(t.state).toMatchObject({ status: 'PAID', amountReceived: '11.00' });
    expect(types(t)).toEqual(['invoice.overpaid']);
  });

  it('CREATED → CONFIRMING (payment_detected) → PAID on confirmation', () => {
    const d = detectPayment(fresh(), T0, 'USDT', null);
    expect(d.state).toMatchObject({ status: 'CONFIRMING', pending: 1, amountReceived: '0.00' });
    expect(d.events).toEqual([{ type: 'invoice.payment_detected', token: 'USDT', status: 'CONFIRMING', amountReceived: '0.00' }]);
    const c = confirmPayment(d.state, T0, { amount: '10', token: 'USDT', wasPending: true }, null);
    expect(c.state).toMatchObject({ status: 'PAID', pending: 0 });
    expect(types(c)).toEqual(['invoice.paid']);
  });

  it('PARTIALLY_PAID → CONFIRMING → PARTIALLY_PAID when still short', () => {
    const p = confirm(fresh(), '3').state;
    const d = detectPayment(p, T0, 'USDC', 'USDC');
    expect(d.state.status).toBe('CONFIRMING');
    const c = confirm(d.state, '3', T0, true);
    expect(c.state).toMatchObject({ status: 'PARTIALLY_PAID', amountReceived: '6.00', pending: 0 });
    expect(types(c)).toEqual(['invoice.partially_paid']);
  });

  it('a second payment seen while CONFIRMING is detected again', () => {
    const d1 = detectPayment(fresh(), T0, 'USDC', null);
    const d2 = detectPayment(d1.state, T0, 'USDC', null);
    expect(d2.state).toMatchObject({ status: 'CONFIRMING', pending: 2 });
    expect(types(d2)).toEqual(['invoice.payment_detected']);
  });

  it('payments seen on PAID or EXPIRED invoices change no status and emit nothing until they confirm', () => {
    const paid = confirm(fresh(), '10').state;
    expect(detectPayment(paid, T0, 'USDC', null)).toMatchObject({ state: { status: 'PAID', pending: 1 }, events: [] });
    const expired = fresh({ status: 'EXPIRED' });
    expect(detectPayment(expired, T0, 'USDC', null)).toMatchObject({ state: { status: 'EXPIRED', pending: 1 }, events: [] });
  });
});

describe('expiry', () => {
  it('CREATED and PARTIALLY_PAID expire at expiresAt, not before', () => {
    expect(isExpiryDue(fresh(), EXP - 1)).toBe(false);
    expect(isExpiryDue(fresh(), EXP)).toBe(true);
    expect(isExpiryDue(fresh({ status: 'PARTIALLY_PAID', amountReceived: '1.00' }), EXP)).toBe(true);
    const t = catchUpExpiry(fresh(), EXP, null);
    expect(t).toEqual({
      state: { ...fresh(), status: 'EXPIRED' },
      events: [{ type: 'invoice.expired', token: null, status: 'EXPIRED', amountReceived: '0.00' }],
    });
    // With earlier payments, the expiry carries the last payment's token.
    expect(catchUpExpiry(fresh({ status: 'PARTIALLY_PAID', amountReceived: '2.00' }), EXP, 'USDT').events).toEqual([
      { type: 'invoice.expired', token: 'USDT', status: 'EXPIRED', amountReceived: '2.00' },
    ]);
  });

  it('CONFIRMING, PAID and EXPIRED invoices do not expire by time', () => {
    for (const status of ['CONFIRMING', 'PAID', 'EXPIRED'] as const)
      expect(isExpiryDue(fresh({ status, pending: status === 'CONFIRMING' ? 1 : 0 }), EXP + 1)).toBe(false);
  });

  it('a confirmation after expiresAt that falls short → EXPIRED', () => {
    const d = detectPayment(fresh(), T0, 'USDC', null).state;
    const c = confirm(d, '4', EXP + 1000, true);
    expect(c.state).toMatchObject({ status: 'EXPIRED', amountReceived: '4.00' });
    expect(c.events).toEqual([{ type: 'invoice.expired', token: 'USDC', status: 'EXPIRED', amountReceived: '4.00' }]);
  });

  it('a confirmation after expiresAt that pays in full → PAID', () => {
    const d = detectPayment(fresh(), T0, 'USDC', null).state;
    const c = confirm(d, '10', EXP + 1000, true);
    expect(c.state.status).toBe('PAID');
    expect(types(c)).toEqual(['invoice.paid']);
  });

  it('a late payment after expiry: the expiry comes first, then invoice.paid_late; the status stays EXPIRED', () => {
    const t = confirm(fresh(), '10', EXP + 1);
    expect(t.state).toMatchObject({ status: 'EXPIRED', amountReceived: '10.00' });
    expect(types(t)).toEqual(['invoice.expired', 'invoice.paid_late']);
    // Each event reports the invoice as it was right after it: nothing received yet at the expiry.
    expect(t.events.map((e) => e.amountReceived)).toEqual(['0.00', '10.00']);
    const again = confirm(t.state, '1', EXP + 2);
    expect(types(again)).toEqual(['invoice.paid_late']);
    expect(again.state.amountReceived).toBe('11.00');
  });

  it('a payment seen after expiresAt on an open invoice expires it first and emits no payment_detected', () => {
    const t = detectPayment(fresh(), EXP, 'USDC', null);
    expect(t.state).toMatchObject({ status: 'EXPIRED', pending: 1 });
    expect(types(t)).toEqual(['invoice.expired']);
    expect(types(confirm(t.state, '10', EXP, true))).toEqual(['invoice.paid_late']);
  });
});

describe('expire now (test helper)', () => {
  it('expires CREATED and PARTIALLY_PAID at once and moves expiresAt to now', () => {
    const t = expireNow(fresh(), T0, null);
    expect(t).toEqual({
      state: { ...fresh(), status: 'EXPIRED', expiresAt: T0 },
      events: [{ type: 'invoice.expired', token: null, status: 'EXPIRED', amountReceived: '0.00' }],
    });
  });

  it('refuses PAID and EXPIRED', () => {
    expect(expireNow(fresh({ status: 'PAID' }), T0, null)).toEqual({ refused: 'not_expirable' });
    expect(expireNow(fresh({ status: 'EXPIRED' }), T0, null)).toEqual({ refused: 'not_expirable' });
  });

  it('with a payment confirming: no event yet; a short confirmation then expires it', () => {
    const d = detectPayment(fresh(), T0, 'USDC', null).state;
    const t = expireNow(d, T0 + 5, null);
    expect(t).toEqual({ state: { ...d, expiresAt: T0 + 5 }, events: [] });
    if ('refused' in t) throw new Error('unexpected');
    expect(confirm(t.state, '1', T0 + 6, true).state.status).toBe('EXPIRED');
  });
});
