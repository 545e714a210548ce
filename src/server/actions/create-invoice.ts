import { depositAddresses } from '../../domain/addresses.js';
import { zeroLike } from '../../domain/money.js';
import type { Tx } from '../../store/db.js';
import type { InvoiceRow } from '../../store/repos/invoices.js';
import { recordEvents } from '../../webhooks/outbox.js';
import type { MerchantRow } from '../../store/repos/merchants.js';
import type { AppDeps } from '../route.js';
import { chooseRoute, merchantChains } from './routes.js';

export interface NewInvoiceInput {
  amount: string;
  referenceId?: string | undefined;
  networkId?: number | undefined;
  token?: string | undefined;
}

/**
 * Creates an invoice for `merchant` with its deposit addresses, expiring after the configured
 * lifetime on the emulator clock. Runs inside the caller's transaction `tx`.
 */
export async function createInvoice(tx: Tx, deps: AppDeps, merchant: MerchantRow, input: NewInvoiceInput): Promise<InvoiceRow> {
  const route = chooseRoute(merchantChains(deps.config, merchant), input.networkId, input.token);
  const now = deps.clock.now();
  const id = deps.random.uuidv7(now);
  const expiresAt = now + deps.config.invoiceLifetimeSeconds * 1000;
  const fields = {
    id,
    merchant_id: merchant.id,
    partner_id: merchant.partner_id,
    environment: merchant.environment,
    status: 'CREATED' as const,
    amount: input.amount,
    amount_received: zeroLike(input.amount),
    reference_id: input.referenceId ?? null,
    lock_network_id: input.networkId ?? null,
    lock_token: input.token ?? null,
    addresses: JSON.stringify(depositAddresses(id, route.chains, route.token)),
    expires_at: expiresAt,
    created_at: now,
    updated_at: now,
  };
  // The first event, sequence 1, is written with the invoice in the caller's transaction
  // (CONTRACT §4). The row is known in full here, so nothing is read back: this is the hot path.
  await tx.invoices.insertInvoice({ ...fields, last_sequence: 1 });
  const { recorded } = await recordEvents(
    tx,
    { ...fields, seq: 0, last_sequence: 0, pending_payments: 0 },
    [{ type: 'invoice.created', token: null, status: 'CREATED', amountReceived: fields.amount_received }],
    now,
    deps.random,
    deps.runtime.extraTargets,
    merchant,
  );
  // After the commit: on PostgreSQL the dispatcher claims on another connection, which would not
  // see this delivery yet, and nothing would wake it again until the next retry tick.
  const wake = recorded[0]!.deliveries > 0;
  tx.afterCommit(() => {
    if (wake) deps.runtime.schedule(now);
    deps.runtime.schedule(expiresAt);
  });
  return { ...fields, seq: 0, last_sequence: 1, pending_payments: 0 };
}
