import { describe, expect, it } from 'vitest';
import { depositAddresses } from '../../src/domain/addresses.js';
import { chainsFor } from '../../src/domain/chains.js';
import { parseCustomHeaders, parseDepositAddresses, parseEventTypes, parseNetworkIds } from '../../src/store/json-columns.js';

/** JSON columns are read back checked: a restored snapshot may hold anything (CONTRACT §8). */
describe('JSON columns', () => {
  it('read back what svc writes', () => {
    const addresses = depositAddresses('0190c6f4-0000-7000-8000-000000000001', chainsFor('test'));
    expect(parseDepositAddresses(JSON.stringify(addresses))).toEqual(addresses);
    expect(parseCustomHeaders('{"X-Team":"payments"}')).toEqual({ 'X-Team': 'payments' });
    expect(parseNetworkIds('[1,137]')).toEqual([1, 137]);
    expect(parseEventTypes('["invoice.paid","invoice.expired"]')).toEqual(['invoice.paid', 'invoice.expired']);
    expect(parseEventTypes(null)).toBeNull();
  });

  it('refuse another shape, naming the column', () => {
    expect(() => parseCustomHeaders('{"X-Team":1}')).toThrow(/custom_headers/);
    expect(() => parseCustomHeaders('[]')).toThrow(/custom_headers/);
    expect(() => parseNetworkIds('["1"]')).toThrow(/network_ids/);
    expect(() => parseEventTypes('["invoice.refunded"]')).toThrow(/events/);
    expect(() => parseDepositAddresses('[{"chainId":"x"}]')).toThrow(/addresses/);
    expect(() => parseDepositAddresses('{}')).toThrow(/addresses/);
  });
});
