import { compareAmounts, formatReceived, remainingAmount, subtractAmounts } from '../../domain/money.js';
import { paymentUri } from '../../domain/payment-uri.js';
import { testAmount as amountFor, type TestAction, unavailableActions } from '../../domain/test-actions.js';
import { parseDepositAddresses } from '../../store/json-columns.js';
import type { InvoiceRow } from '../../store/repos/invoices.js';
import type { Repos } from '../../store/db.js';
import { iso } from '../presenters.js';

export interface CheckoutRoute {
  key: string;
  networkId: number;
  chainName: string;
  family: string;
  token: string;
  contractAddress: string;
  decimals: number;
  address: string;
  /** What is left to pay, in token units (USD stablecoins are 1:1). */
  amount: string;
  uri: string;
}

/** Everything the checkout page shows, as JSON: rendered into the page and polled by its script. */
export interface CheckoutState {
  id: string;
  environment: string;
  status: string;
  amount: string;
  amountReceived: string;
  remaining: string;
  referenceId: string | null;
  expiresAt: string;
  /** Emulator time now: the countdown runs on the emulator's clock, which may be ahead. */
  now: string;
  locked: boolean;
  routes: CheckoutRoute[];
  pending: { id: string; amount: string; token: string }[];
  /**
   * PAID (overpaid too) or EXPIRED: nothing more is asked of the payer, so the page shows what was
   * received instead of an address, a QR code and an amount to send (issue 24: a paid invoice said
   * "Send 0 USDC").
   */
  final: boolean;
  /** On a final invoice, one sentence saying how it ended and what was received; null before. */
  outcome: string | null;
  /** Every payment seen, oldest first: what a final page reports as received. */
  payments: { amount: string; token: string; chainName: string; confirmed: boolean }[];
  /** Test-panel actions that cannot apply now, each with the reason the page shows beside it. */
  unavailable: Partial<Record<TestAction, string>>;
}

// The test actions and when they apply: one rule, shared with the dashboard (src/domain/test-actions.ts).
export { TEST_ACTIONS, type TestAction } from '../../domain/test-actions.js';

function outcomeOf(status: string, amount: string, received: string): string | null {
  const none = compareAmounts(received, '0') === 0;
  if (status === 'PAID') {
    if (compareAmounts(received, amount) > 0)
      return `Overpaid: ${received} USD received for ${amount} USD due (${subtractAmounts(received, amount)} USD more).`;
    return `Paid in full: ${received} USD received.`;
  }
  if (status === 'EXPIRED') return none ? 'Expired before any payment arrived.' : `Expired with ${received} of ${amount} USD received.`;
  return null;
}

export async function checkoutState(db: Repos, invoice: InvoiceRow, now: number): Promise<CheckoutState> {
  const remaining = remainingAmount(invoice.amount, invoice.amount_received);
  const addresses = parseDepositAddresses(invoice.addresses);
  const routes = addresses.flatMap((a) =>
    a.tokens.map((t) => ({
      key: `${a.networkId}:${t.symbol}`,
      networkId: a.networkId,
      chainName: a.chainName,
      family: a.family,
      token: t.symbol,
      contractAddress: t.contractAddress,
      decimals: t.decimals,
      address: a.depositAddress,
      amount: remaining,
      uri: paymentUri({
        family: a.family,
        networkId: a.networkId,
        depositAddress: a.depositAddress,
        token: t,
        amount: compareAmounts(remaining, '0') > 0 ? remaining : invoice.amount,
      }),
    })),
  );
  const chainNames = new Map(addresses.map((a) => [a.networkId, a.chainName]));
  const payments = await db.payments.paymentsOf(invoice.id);
  const pending = payments.filter((p) => !p.confirmed).map((p) => ({ id: p.id, amount: p.amount, token: p.token }));
  return {
    id: invoice.id,
    environment: invoice.environment,
    status: invoice.status,
    amount: invoice.amount,
    amountReceived: invoice.amount_received,
    remaining,
    referenceId: invoice.reference_id,
    expiresAt: iso(invoice.expires_at),
    now: iso(now),
    locked: invoice.lock_network_id !== null || invoice.lock_token !== null,
    routes,
    pending,
    final: invoice.status === 'PAID' || invoice.status === 'EXPIRED',
    outcome: outcomeOf(invoice.status, invoice.amount, invoice.amount_received),
    payments: payments.map((p) => ({
      // In the invoice's own digits, like amountReceived ("5" paid on "10.00" reads "5.00").
      amount: formatReceived(invoice.amount, p.amount),
      token: p.token,
      chainName: chainNames.get(p.network_id) ?? `network ${p.network_id}`,
      confirmed: p.confirmed === 1,
    })),
    unavailable: unavailableActions({ status: invoice.status, amount: invoice.amount, amountReceived: invoice.amount_received, pendingCount: pending.length }),
  };
}

/** Amounts for the test panel's buttons, from what is left to pay. */
export function testAmount(invoice: InvoiceRow, kind: 'full' | 'part' | 'over'): string {
  return amountFor(invoice.amount, invoice.amount_received, kind);
}
