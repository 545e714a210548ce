import { addAmounts, compareAmounts, formatReceived, fromBaseUnits, remainingAmount, toBaseUnits } from './money.js';

/**
 * What the test helpers can do to an invoice, and when: one rule for the checkout page's test panel
 * and the dashboard's invoice view (issue 38: the dashboard offered "Pay in full" and "Expire" on a
 * PAID invoice, where the checkout page disabled them). The server renders the panel from it; the
 * dashboard runs the same module in the browser (built to dist/page-rules.js, /assets/page-rules.js).
 */
export const TEST_ACTIONS = ['pay-full', 'pay-part', 'overpay', 'pay-unconfirmed', 'confirm', 'expire'] as const;
export type TestAction = (typeof TEST_ACTIONS)[number];

/** The buttons' words, the same on both pages. */
export const TEST_ACTION_LABELS: Record<TestAction, string> = {
  'pay-full': 'Pay in full',
  'pay-part': 'Pay part',
  overpay: 'Overpay',
  'pay-unconfirmed': 'Pay unconfirmed',
  confirm: 'Confirm pending payment',
  expire: 'Expire now',
};

/** What the rule needs to know of an invoice. */
export interface TestActionSubject {
  status: string;
  amount: string;
  amountReceived: string;
  /** Payments seen but not confirmed yet: what "confirm" acts on. */
  pendingCount: number;
}

/**
 * Why each test action cannot apply in this state. A payment on a PAID or EXPIRED invoice stays
 * possible (it raises amountReceived; on EXPIRED it is invoice.paid_late, worth testing), so only
 * "pay what is left" goes away once nothing is left.
 */
export function unavailableActions(invoice: TestActionSubject): Partial<Record<TestAction, string>> {
  const out: Partial<Record<TestAction, string>> = {};
  const remaining = remainingAmount(invoice.amount, invoice.amountReceived);
  if (invoice.status === 'PAID' || compareAmounts(remaining, '0') <= 0) {
    out['pay-full'] = 'Nothing is left to pay.';
    out['pay-part'] = 'Nothing is left to pay.';
  }
  if (invoice.pendingCount === 0) out.confirm = 'No payment is waiting for confirmation.';
  if (invoice.status === 'PAID') out.expire = 'A paid invoice cannot expire.';
  if (invoice.status === 'EXPIRED') out.expire = 'The invoice has expired already.';
  return out;
}

/** The amount a payment action sends, from what is left to pay (the whole amount once nothing is). */
export function testAmount(amount: string, amountReceived: string, kind: 'full' | 'part' | 'over'): string {
  const remaining = remainingAmount(amount, amountReceived);
  const left = compareAmounts(remaining, '0') > 0 ? remaining : amount;
  if (kind === 'full') return left;
  if (kind === 'over') return formatReceived(amount, addAmounts(left, '1'));
  // Half of what is left, at most 6 decimals, never zero.
  const half = toBaseUnits(left, 6) / 2n;
  return fromBaseUnits(half > 0n ? half : 1n, 6);
}
