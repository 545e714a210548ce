/**
 * The create and webhook endpoints the bad-input properties aim at: each field's valid, plausible
 * and invalid values (with the code each invalid one must get), and the keys to call them with.
 */
import fc from 'fast-check';
import { knownNetworkIds } from '../../src/domain/chains.js';
import { world } from './bad-input-emulator.js';
import { AMOUNT, fresh, notA, UUID } from './bad-input-values.js';

export type Principal = 'partner' | 'merchant';

export interface Field {
  valid: fc.Arbitrary<unknown>;
  /** Well-typed values that may still be refused (someone else's id, a taken tenant); default: valid. */
  plausible?: fc.Arbitrary<unknown>;
  /** Invalid values and the error code each must get, with `param` starting with the field name. */
  invalid: fc.Arbitrary<{ value: unknown; code: string }>;
  required: boolean;
}
export const failing = (values: fc.Arbitrary<unknown>, code = 'validation_failed') => values.map((value) => ({ value, code }));

export const amountField: Field = {
  required: true,
  valid: fc.oneof(
    fc.constantFrom('10.00', '1', '0.000001', '999999999999999999.999999', '25.5'),
    fc
      .tuple(fc.stringMatching(/^(0|[1-9][0-9]{0,17})$/), fc.option(fc.stringMatching(/^\.[0-9]{1,6}$/), { nil: '' }))
      .map(([i, f]) => i + f)
      .filter((s) => /[1-9]/.test(s)),
  ),
  invalid: failing(
    fc.oneof(
      notA('string'),
      fc.integer(), // a JSON number is never an amount
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(
        '0',
        '0.0',
        '0.000000',
        '00.1',
        '01',
        '-1',
        '+1',
        '1e3',
        '1E-2',
        ' 1',
        '1 ',
        '1.',
        '.5',
        '1.1234567',
        '1,00',
        '１',
        'NaN',
        'Infinity',
        '0x10',
        '',
        '10.00 USD',
      ),
      fc.string({ maxLength: 30 }).filter((s) => !AMOUNT.test(s) || !/[1-9]/.test(s)),
    ),
  ),
};
export const stringField = (max: number): Field => ({
  required: true,
  valid: fc.string({ minLength: 1, maxLength: Math.min(max, 60) }),
  invalid: failing(
    fc.oneof(
      notA('string'),
      fc.constant(''),
      fc.integer({ min: max + 1, max: max + 300 }).map((n) => 'y'.repeat(n)),
      // U+0000 anywhere (PostgreSQL's text cannot hold it), or a lone surrogate (stored as U+FFFD):
      // neither engine stores one.
      fc.tuple(fc.string({ maxLength: 20 }), fc.constantFrom('\0', '\ud800', '\udfff'), fc.string({ maxLength: 20 })).map(([a, bad, b]) => `${a}${bad}${b}`),
    ),
  ),
});
export const optional = (f: Field): Field => ({ ...f, required: false });

export const ROUTE_LOCKS: Record<string, unknown>[] = [
  {},
  { networkId: 84532 },
  { networkId: 103 },
  { token: 'USDC' },
  { networkId: 2494104990, token: 'USDT' },
  { networkId: 11155111, token: 'USDC' },
];

export const networkIdInvalid = failing(
  fc.oneof(
    notA('number'),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
    fc.integer({ max: 0 }),
    fc.constantFrom(2 ** 53 + 2, '84532', [84532]),
  ),
);
export const tokenInvalid = failing(
  fc.oneof(
    notA('string'),
    fc.constant(''),
    fc.integer({ min: 33, max: 80 }).map((n) => 'T'.repeat(n)),
  ),
);

export interface Endpoint {
  name: string;
  method: 'POST' | 'PUT';
  path: string;
  principal: Principal;
  idempotent: boolean;
  fees: boolean;
  fields: () => Record<string, Field>;
}

export const ENDPOINTS: Endpoint[] = [
  {
    name: 'create merchant',
    method: 'POST',
    path: '/v1/partner/merchants',
    principal: 'partner',
    idempotent: true,
    fees: true,
    fields: () => ({
      externalTenantId: {
        ...stringField(255),
        valid: fc.constant(null).map(() => fresh('tenant')),
        // Taken ones: 409 external_tenant_id_taken (by this partner), or free (other partner's tenant).
        plausible: fc.oneof(
          fc.constant(null).map(() => fresh('tenant')),
          fc.constantFrom('default-test', 'default-live', 'other-tenant'),
        ),
      },
      email: {
        required: true,
        valid: fc.constantFrom('a@example.com', 'x.y+z@sub.example.org'),
        invalid: failing(fc.oneof(notA('string'), fc.constantFrom('', 'plainaddress', 'a@', '@b.co', 'a b@c.de', 'a@b', `${'a'.repeat(250)}@example.com`))),
      },
      name: stringField(255),
    }),
  },
  {
    name: 'create partner invoice',
    method: 'POST',
    path: '/v1/partner/invoices',
    principal: 'partner',
    idempotent: true,
    fees: false,
    fields: () => ({
      merchantId: {
        required: true,
        valid: fc.constant(world.keys.test.merchantId),
        // Someone else's merchant, a live one, or nobody's: 404 merchant_not_found.
        plausible: fc.oneof(
          { weight: 3, arbitrary: fc.constant(world.keys.test.merchantId) },
          fc.constantFrom(world.otherMerchantId, world.keys.live.merchantId),
          fc.uuid(),
        ),
        invalid: failing(
          fc.oneof(
            notA('string'),
            fc.string({ maxLength: 40 }).filter((s) => !UUID.test(s)),
            fc.uuid().map((u) => `${u}0`),
          ),
        ),
      },
      amount: amountField,
      referenceId: optional(stringField(255)),
      networkId: { required: false, valid: fc.constantFrom(...knownNetworkIds('test')), invalid: networkIdInvalid },
      token: { required: false, valid: fc.constant('USDC'), invalid: tokenInvalid },
    }),
  },
  {
    name: 'create merchant invoice',
    method: 'POST',
    path: '/v1/invoices',
    principal: 'merchant',
    idempotent: true,
    fees: false,
    fields: () => ({
      amount: amountField,
      referenceId: optional(stringField(255)),
      networkId: { required: false, valid: fc.constantFrom(...knownNetworkIds('test')), invalid: networkIdInvalid },
      token: { required: false, valid: fc.constant('USDC'), invalid: tokenInvalid },
    }),
  },
  {
    name: 'put webhook',
    method: 'PUT',
    path: '/v1/partner/webhook',
    principal: 'partner',
    idempotent: false,
    fees: false,
    fields: () => ({
      url: {
        required: true,
        valid: fc.constantFrom('https://example.com/hook', 'http://localhost:3000/hooks', 'http://127.0.0.1:9/h'),
        invalid: failing(notA('string')),
      },
      secret: {
        required: false,
        valid: fc.string({ minLength: 16, maxLength: 80 }),
        invalid: fc.oneof(
          failing(notA('string')),
          failing(
            fc.oneof(
              fc.string({ maxLength: 15 }),
              fc.integer({ min: 256, max: 600 }).map((n) => 's'.repeat(n)),
            ),
            'webhook_secret_invalid',
          ),
        ),
      },
      enabled: { required: false, valid: fc.boolean(), invalid: failing(notA('boolean')) },
      customHeaders: {
        required: false,
        // Names distinct regardless of case, values visible ASCII, spaces and tabs (CONTRACT §8).
        valid: fc.dictionary(fc.stringMatching(/^X-[A-Z0-9-]{1,12}$/), fc.stringMatching(/^[\x20-\x7e\t]{0,30}$/), { maxKeys: 4 }),
        invalid: failing(
          fc.oneof(
            notA('object'),
            fc.constant([]),
            fc.constantFrom<unknown>(
              { 'X-Number': 5 },
              { 'bad name': 'v' },
              { '': 'v' },
              { 'Content-Type': 'text/plain' },
              { 'x-service-signature': 'forged' },
              { Host: 'evil.example' },
              { 'X-Split': 'a\r\nInjected: yes' },
              { 'X-Nul': 'a\u0000b' },
              { 'X-Long': 'v'.repeat(5000) },
              { 'X-Emoji': '\u{1F600}' },
              { 'Transfer-Encoding': 'chunked' },
              Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])),
            ),
          ),
        ),
      },
    }),
  },
];
export const byPath = (path: string) => ENDPOINTS.find((e) => e.path === path)!;

/** The right key for an endpoint: test keys, of the kind it needs. */
export const rightKey = (e: Endpoint) => (e.principal === 'partner' ? world.keys.test.partnerKey : world.keys.test.merchantKey);
export const allKeys = () => [
  world.keys.test.partnerKey,
  world.keys.test.merchantKey,
  world.keys.live.partnerKey,
  world.keys.live.merchantKey,
  world.otherPartner.test,
  world.otherPartner.live,
  world.otherMerchantKey,
];
