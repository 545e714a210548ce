/**
 * Rows for repository-level tests of a store engine (postgres-repos*.test.ts): a partner, a merchant
 * and invoices, events and deliveries under it, with every column set. Values are chosen to catch
 * loss: times beyond 2^32 ms, Tron Shasta's network id beyond 2^31, money with six decimals.
 */
import { randomUUID } from 'node:crypto';
import type { StoreEngine } from './pg-engine.js';
import type { NewDelivery } from '../../src/store/repos/deliveries.js';
import type { NewInvoice } from '../../src/store/repos/invoices.js';
import type { NewMerchant } from '../../src/store/repos/merchants.js';

export const T0 = 1_764_150_000_123;

export function merchantRow(partnerId: string, fields: Partial<NewMerchant> = {}): NewMerchant {
  return {
    id: randomUUID(),
    partner_id: partnerId,
    environment: 'test',
    organization_id: randomUUID(),
    external_tenant_id: `tenant-${randomUUID()}`,
    name: 'Shop',
    email: 'shop@example.com',
    integration_status: 'PENDING',
    dashboard_access: 0,
    auto_payout_enabled: 1,
    network_ids: '[2494104990]',
    created_at: T0,
    updated_at: T0,
    ...fields,
  };
}

export function invoiceRow(merchant: NewMerchant, fields: Partial<NewInvoice> = {}): NewInvoice {
  return {
    id: randomUUID(),
    merchant_id: merchant.id,
    partner_id: merchant.partner_id,
    environment: merchant.environment,
    status: 'CREATED',
    amount: '10.000001',
    amount_received: '0.000000',
    reference_id: 'order-1',
    lock_network_id: 2494104990,
    lock_token: 'USDT',
    addresses: '[{"address":"T…"}]',
    expires_at: T0 + 3_600_000,
    created_at: T0,
    updated_at: T0,
    last_sequence: 1,
    ...fields,
  };
}

export function eventRow(invoice: NewInvoice, sequence: number) {
  return {
    id: `${invoice.id}-${sequence}`,
    invoice_id: invoice.id,
    sequence,
    type: 'invoice.created',
    environment: invoice.environment,
    partner_id: invoice.partner_id,
    merchant_id: invoice.merchant_id,
    payload: `{"id":"${invoice.id}-${sequence}","b":1,"a":2}`,
    created_at: T0,
  };
}

export function deliveryRow(eventId: string, invoice: NewInvoice, fields: Partial<NewDelivery> = {}): NewDelivery {
  return {
    id: randomUUID(),
    event_id: eventId,
    event_type: 'invoice.created',
    invoice_id: invoice.id,
    merchant_id: invoice.merchant_id,
    partner_id: invoice.partner_id,
    environment: invoice.environment,
    target: 'webhook',
    url: 'http://127.0.0.1:1/hook',
    status: 'pending',
    attempt_count: 0,
    scheduled_attempts: 0,
    in_flight: 0,
    last_attempt_at: null,
    next_attempt_at: T0,
    last_response_status: null,
    last_error: null,
    created_at: T0,
    updated_at: T0,
    ...fields,
  };
}

/** A partner and a merchant, committed. */
export async function seedMerchant<H>(engine: StoreEngine<H>, fields: Partial<NewMerchant> = {}): Promise<NewMerchant> {
  const partnerId = randomUUID();
  const merchant = merchantRow(partnerId, fields);
  await engine.transaction(async (tx) => {
    await engine.repos.partners.insertPartner(tx, { id: partnerId, name: 'Partner', created_at: T0 });
    await engine.repos.merchants.insertMerchant(tx, merchant);
  });
  return merchant;
}

/** An invoice with its first event, committed together (the outbox, CONTRACT §4). */
export async function seedInvoice<H>(engine: StoreEngine<H>, merchant: NewMerchant, fields: Partial<NewInvoice> = {}): Promise<NewInvoice> {
  const invoice = invoiceRow(merchant, fields);
  await engine.transaction(async (tx) => {
    await engine.repos.invoices.insertInvoice(tx, invoice);
    await engine.repos.events.insertEvent(tx, eventRow(invoice, 1));
  });
  return invoice;
}
