import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { depositAddresses } from '../../src/domain/addresses.js';
import { chainsFor } from '../../src/domain/chains.js';
import { presentInvoice, presentInvoiceJson, presentWebhookConfig } from '../../src/server/presenters.js';
import type { InvoiceRow } from '../../src/store/repos/invoices.js';
import type { WebhookConfigRow } from '../../src/store/repos/webhook-configs.js';

describe('presentInvoiceJson', () => {
  it('is byte for byte JSON.stringify(presentInvoice(...)), for both variants', () => {
    const id = randomUUID();
    const row: InvoiceRow = {
      seq: 1,
      id,
      merchant_id: randomUUID(),
      partner_id: randomUUID(),
      environment: 'test',
      status: 'PARTIALLY_PAID',
      amount: '25.00',
      amount_received: '1.50',
      reference_id: 'order "1" <x>',
      lock_network_id: null,
      lock_token: null,
      addresses: JSON.stringify(depositAddresses(id, chainsFor('test'))),
      expires_at: Date.UTC(2030, 0, 1),
      created_at: 0,
      updated_at: 0,
      last_sequence: 2,
      pending_payments: 0,
    };
    for (const variant of ['partner', 'merchant'] as const) {
      expect(presentInvoiceJson(row, variant, 'http://127.0.0.1:4747')).toBe(JSON.stringify(presentInvoice(row, variant, 'http://127.0.0.1:4747')));
    }
    expect(presentInvoiceJson({ ...row, reference_id: null }, 'merchant', 'http://x')).toBe(
      JSON.stringify(presentInvoice({ ...row, reference_id: null }, 'merchant', 'http://x')),
    );
  });

  it('refuses a stored addresses column of another shape, naming it (a restored snapshot is untrusted)', () => {
    const row = { addresses: JSON.stringify([{ chainId: 1 }]) } as const;
    const invoice: InvoiceRow = {
      seq: 1,
      id: randomUUID(),
      merchant_id: randomUUID(),
      partner_id: randomUUID(),
      environment: 'test',
      status: 'CREATED',
      amount: '1.00',
      amount_received: '0.00',
      reference_id: null,
      lock_network_id: null,
      lock_token: null,
      ...row,
      expires_at: 0,
      created_at: 0,
      updated_at: 0,
      last_sequence: 1,
      pending_payments: 0,
    };
    expect(() => presentInvoice(invoice, 'merchant', 'http://x')).toThrow(/addresses column/);
  });
});

describe('presentWebhookConfig', () => {
  const row: WebhookConfigRow = {
    id: randomUUID(),
    partner_id: randomUUID(),
    environment: 'test',
    url: 'http://127.0.0.1:9/hook',
    secret: 'whsec_0123456789abcdef',
    custom_headers: '{"X-Team":"payments"}',
    enabled: 1,
    created_at: 0,
    updated_at: 0,
  };

  it('reads customHeaders from the stored JSON', () => {
    expect(presentWebhookConfig(row).customHeaders).toEqual({ 'X-Team': 'payments' });
  });

  it('refuses a stored custom_headers column of another shape, naming it', () => {
    expect(() => presentWebhookConfig({ ...row, custom_headers: '{"X-Team":1}' })).toThrow(/custom_headers column/);
    expect(() => presentWebhookConfig({ ...row, custom_headers: '["x"]' })).toThrow(/custom_headers column/);
  });
});
