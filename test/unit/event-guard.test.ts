/**
 * Stored envelopes are read back checked (a restored snapshot is untrusted, CONTRACT §8), and the
 * envelope builder holds each type to its catalog status and token rule (CONTRACT §4) by the same
 * check instead of a cast (issue 26).
 */
import { describe, expect, it } from 'vitest';
import { EVENT_CATALOG, INVOICE_EVENT_TYPES } from '../../src/contract/enums.js';
import { buildEnvelope, type EnvelopeInput } from '../../src/webhooks/envelope.js';
import { isWebhookEvent } from '../../src/webhooks/event-guard.js';

const base: EnvelopeInput = {
  invoiceId: '0190c6f4-0000-7000-8000-000000000001',
  sequence: 1,
  type: 'invoice.paid',
  createdAt: '2030-01-01T00:00:00.000Z',
  environment: 'test',
  partnerId: '0190c6f4-0000-7000-8000-000000000002',
  merchantId: '0190c6f4-0000-7000-8000-000000000003',
  externalTenantId: 'tenant-1',
  status: 'PAID',
  amount: '10.00',
  amountReceived: '10.00',
  token: 'USDC',
};

describe('isWebhookEvent', () => {
  it('accepts every event type with its catalog status and a token its rule allows', () => {
    for (const type of INVOICE_EVENT_TYPES) {
      const rule = EVENT_CATALOG[type];
      const token = rule.token === 'never' ? null : 'USDC';
      const event = buildEnvelope({ ...base, type, status: rule.status, token });
      expect(isWebhookEvent(JSON.parse(JSON.stringify(event)))).toBe(true);
    }
  });

  it('refuses a status or token the type does not allow, an unknown type, a missing field', () => {
    const event = JSON.parse(JSON.stringify(buildEnvelope(base)));
    expect(isWebhookEvent({ ...event, data: { ...event.data, status: 'CREATED' } })).toBe(false);
    expect(isWebhookEvent({ ...event, data: { ...event.data, token: null } })).toBe(false);
    expect(isWebhookEvent({ ...event, type: 'invoice.refunded' })).toBe(false);
    expect(isWebhookEvent({ ...event, environment: 'staging' })).toBe(false);
    const { partnerId: _, ...noPartner } = event;
    expect(isWebhookEvent(noPartner)).toBe(false);
    expect(isWebhookEvent([event])).toBe(false);
    expect(isWebhookEvent(null)).toBe(false);
  });

  it('makes buildEnvelope refuse a type with another status (a bug in svc, thrown before anything is written)', () => {
    expect(() => buildEnvelope({ ...base, type: 'invoice.created', status: 'PAID', token: null })).toThrow(/invoice.created with status PAID/);
  });
});
