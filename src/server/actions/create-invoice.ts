import { randomUUID } from 'node:crypto';
import { depositAddresses } from '../../domain/addresses.js';
import { zeroLike } from '../../domain/money.js';
import { findInvoice, insertInvoice, type InvoiceRow } from '../../store/repos/invoices.js';
import type { MerchantRow } from '../../store/repos/merchants.js';
import type { AppDeps } from '../route.js';
import { applyTransition, stateOf } from './lifecycle.js';
import { chooseRoute, merchantChains } from './routes.js';

export interface NewInvoiceInput {
  amount: string;
  referenceId?: string | undefined;
  networkId?: number | undefined;
  token?: string | undefined;
}

/**
 * Creates an invoice for `merchant` with its deposit addresses, expiring after the configured
 * lifetime on the emulator clock. Runs inside the caller's transaction.
 */
export function createInvoice(deps: AppDeps, merchant: MerchantRow, input: NewInvoiceInput): InvoiceRow {
  const route = chooseRoute(merchantChains(deps.config, merchant), input.networkId, input.token);
  const now = deps.clock.now();
  const id = randomUUID();
  insertInvoice(deps.store, {
    id,
    merchant_id: merchant.id,
    partner_id: merchant.partner_id,
    environment: merchant.environment,
    status: 'CREATED',
    amount: input.amount,
    amount_received: zeroLike(input.amount),
    reference_id: input.referenceId ?? null,
    lock_network_id: input.networkId ?? null,
    lock_token: input.token ?? null,
    addresses: JSON.stringify(depositAddresses(id, route.chains, route.token)),
    expires_at: now + deps.config.invoiceLifetimeSeconds * 1000,
    created_at: now,
    updated_at: now,
    last_sequence: 0,
  });
  deps.runtime.schedule(now + deps.config.invoiceLifetimeSeconds * 1000);
  // The first event, sequence 1, in the same transaction as the invoice (CONTRACT §4).
  const created = findInvoice(deps.store, id)!;
  return applyTransition(deps, created, { state: stateOf(created), events: [{ type: 'invoice.created', token: null, status: 'CREATED', amountReceived: created.amount_received }] }, now).invoice;
}
