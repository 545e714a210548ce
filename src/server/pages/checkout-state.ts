import type { DepositAddress } from '../../domain/addresses.js';
import { addAmounts, compareAmounts, formatReceived, fromBaseUnits, remainingAmount, toBaseUnits } from '../../domain/money.js';
import { paymentUri } from '../../domain/payment-uri.js';
import type { InvoiceRow } from '../../store/repos/invoices.js';
import { pendingPaymentsOf } from '../../store/repos/payments.js';
import type { Store } from '../../store/store.js';
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
}

export function checkoutState(store: Store, invoice: InvoiceRow, now: number): CheckoutState {
  const remaining = remainingAmount(invoice.amount, invoice.amount_received);
  const addresses = JSON.parse(invoice.addresses) as DepositAddress[];
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
    pending: pendingPaymentsOf(store, invoice.id).map((p) => ({ id: p.id, amount: p.amount, token: p.token })),
  };
}

/** Amounts for the test panel's buttons, from what is left to pay. */
export function testAmount(invoice: InvoiceRow, kind: 'full' | 'part' | 'over'): string {
  const remaining = remainingAmount(invoice.amount, invoice.amount_received);
  const left = compareAmounts(remaining, '0') > 0 ? remaining : invoice.amount;
  if (kind === 'full') return left;
  if (kind === 'over') return formatReceived(invoice.amount, addAmounts(left, '1'));
  // Half of what is left, at most 6 decimals, never zero.
  const half = toBaseUnits(left, 6) / 2n;
  return fromBaseUnits(half > 0n ? half : 1n, 6);
}
