import { describe, expect, it } from 'vitest';
import { maskBody, scanBody } from '../../src/server/journal/mask.js';

const KEY = `pt_test_${'a'.repeat(28)}Zz99`;

// An invoice as the service answers it: `tokens` is a member name, not the secret name `token`.
const INVOICE = JSON.stringify({
  id: '01a21968-e793-72bd-8f4c-24706dedb67c',
  status: 'CREATED',
  environment: 'test',
  checkoutUrl: 'http://127.0.0.1:3000/checkout/01a21968',
  addresses: [{ chainName: 'Base Sepolia', tokens: [{ symbol: 'USDC', decimals: 6 }] }],
  metadata: { note: 'a tokenised secretary with a password-less apikey' },
});

describe('maskBody: the shortcut for texts with nothing to mask', () => {
  it('returns a text with no key, secret name or \\u escape unchanged, as the full scan does', () => {
    for (const text of [INVOICE, '', '{}', 'not json', '{"a":"test"}', '{"live":1,"tokens":[]}']) {
      expect(maskBody(text)).toBe(text);
      expect(scanBody(text)).toBe(text);
    }
  });

  it('still masks everything the scan masks', () => {
    const cases: [string, string][] = [
      [`{"key":"${KEY}"}`, '{"key":"pt_test_…Zz99"}'],
      ['{"token":"abcdefghijklmnop"}', '{"token":"…"}'],
      // A token symbol the service lists is the API's own `token` (a route lock, a payment): shown.
      ['{"amount":"1.00","token":"USDC"}', '{"amount":"1.00","token":"USDC"}'],
      ['{"token":"USDT","networkId":2494104990}', '{"token":"USDT","networkId":2494104990}'],
      ['{"Token":"USDC"}', '{"Token":"…"}'],
      ['{"token":"usdc"}', '{"token":"…"}'],
      ['{"Secret": "x"}', '{"Secret": "…"}'],
      ['{"secr\\u0065t":"hidden"}', '{"secr\\u0065t":"…"}'],
      ['{"customHeaders":{"x-auth":"Bearer abc"}}', '{"customHeaders":{"x-auth":"…"}}'],
      [`{"note":"pt_\\u0074est_${'a'.repeat(28)}Zz99"}`, '{"note":"pt_test_…Zz99"}'],
      [`{"cut":"${KEY.slice(0, 20)}`, '{"cut":"pt_test_…'],
    ];
    for (const [text, masked] of cases) {
      expect(maskBody(text)).toBe(masked);
      expect(maskBody(text)).toBe(scanBody(text));
    }
  });
});
