import type { Random } from '../domain/random.js';
import type { StateEvent } from '../domain/invoice-state.js';
import type { Environment } from '../domain/environment.js';
import type { Repos } from '../store/db.js';
import type { InvoiceRow } from '../store/repos/invoices.js';
import type { MerchantRow } from '../store/repos/merchants.js';
import { buildEnvelope, type InvoiceEventType } from './envelope.js';

export interface RecordedEvent {
  id: string;
  type: InvoiceEventType;
  invoiceId: string;
  sequence: number;
  deliveries: number;
}

/**
 * Extra delivery targets beyond the partner's webhook (`svc webhook listen`), if any. Asked inside
 * the outbox's transaction, so it reads (and may write) through that transaction's `tx`.
 */
export type ExtraTargets = (tx: Repos, partnerId: string, environment: Environment, type: InvoiceEventType) => Promise<{ url: string }[]>;

/**
 * The transactional outbox (ARCHITECTURE habit 4): each event gets the invoice's next sequence
 * number, is stored with its exact payload, and gets one pending delivery per target, all inside the
 * caller's transaction. Returns the new last sequence; the caller saves it with the invoice.
 */
export async function recordEvents(
  tx: Repos,
  invoice: InvoiceRow,
  events: readonly StateEvent[],
  now: number,
  random: Random,
  extraTargets?: ExtraTargets,
  /** The invoice's merchant, when the caller has it already (saves a read). */
  knownMerchant?: MerchantRow,
): Promise<{ lastSequence: number; recorded: RecordedEvent[] }> {
  let sequence = invoice.last_sequence;
  if (!events.length) return { lastSequence: sequence, recorded: [] };
  const merchant = knownMerchant ?? (await tx.merchants.findMerchant(invoice.merchant_id))!;
  const webhook = await tx.webhookConfigs.findWebhookConfig(invoice.partner_id, invoice.environment);
  const createdAt = new Date(now).toISOString();
  const recorded: RecordedEvent[] = [];

  for (const e of events) {
    sequence += 1;
    const envelope = buildEnvelope({
      invoiceId: invoice.id,
      sequence,
      type: e.type,
      createdAt,
      environment: invoice.environment,
      partnerId: invoice.partner_id,
      merchantId: invoice.merchant_id,
      externalTenantId: merchant.external_tenant_id,
      status: e.status,
      amount: invoice.amount,
      amountReceived: e.amountReceived,
      token: e.token,
    });
    await tx.events.insertEvent({
      id: envelope.id,
      invoice_id: invoice.id,
      sequence,
      type: e.type,
      environment: invoice.environment,
      partner_id: invoice.partner_id,
      merchant_id: invoice.merchant_id,
      payload: JSON.stringify(envelope),
      created_at: now,
    });
    // A disabled or missing configuration still records the event, with no delivery (CONTRACT §5).
    const targets: { target: 'webhook' | 'listener'; url: string }[] = [];
    if (webhook && webhook.enabled === 1) targets.push({ target: 'webhook', url: webhook.url });
    for (const extra of (await extraTargets?.(tx, invoice.partner_id, invoice.environment, e.type)) ?? []) {
      targets.push({ target: 'listener', url: extra.url });
    }
    for (const t of targets) {
      await tx.deliveries.insertDelivery({
        id: random.uuidv7(now),
        event_id: envelope.id,
        event_type: e.type,
        invoice_id: invoice.id,
        merchant_id: invoice.merchant_id,
        partner_id: invoice.partner_id,
        environment: invoice.environment,
        target: t.target,
        url: t.url,
        status: 'pending',
        attempt_count: 0,
        scheduled_attempts: 0,
        in_flight: 0,
        last_attempt_at: null,
        next_attempt_at: now,
        last_response_status: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      });
    }
    recorded.push({ id: envelope.id, type: e.type, invoiceId: invoice.id, sequence, deliveries: targets.length });
  }
  return { lastSequence: sequence, recorded };
}
