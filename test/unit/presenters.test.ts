import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { depositAddresses } from '../../src/domain/addresses.js';
import { chainsFor } from '../../src/domain/chains.js';
import { presentInvoice, presentInvoiceJson } from '../../src/server/presenters.js';
import type { InvoiceRow } from '../../src/store/repos/invoices.js';

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
});
