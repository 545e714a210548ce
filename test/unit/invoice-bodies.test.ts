/**
 * The invoice creates' bodies are validated without zod (src/server/validation/invoice-bodies.ts),
 * and must answer exactly as their zod schemas do: valid alike, the same first issue (its field,
 * message, and whether it tells a missing field: the one answered), the same output with its keys
 * in the same order, and so the same 400 or the same body through parseWith. zod may add more
 * issues after the first (a length check runs on an array given for a string); nothing reads them.
 * Held on hand-picked edges and on many generated bodies, against the zod the package installs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REQUEST_SCHEMAS } from '../../src/contract/schemas/requests.js';
import { INVOICE_BODIES, type ZodFreeBodyName } from '../../src/server/validation/invoice-bodies.js';
import { parseWith, type Validator } from '../../src/server/validation/parse.js';
import { junk } from '../helpers/bad-input-values.js';

const NAMES = Object.keys(INVOICE_BODIES) as ZodFreeBodyName[];

/** What a validator's answer comes to: its issues as the answer reads them, or its output with key order. */
function outcome(validator: Validator, value: unknown) {
  const result = validator.safeParse(value);
  const answer = (() => {
    try {
      const data = parseWith(validator, value);
      return { data, keys: Object.keys(data as object) };
    } catch (error) {
      return { error: { ...(error as object), message: (error as Error).message } };
    }
  })();
  if (result.success) return { success: true, answer };
  return {
    success: false,
    first: [result.error.issues[0]!].map((i) => ({ path: i.path, message: i.message, missingKind: i.code === 'invalid_type' }))[0],
    answer,
  };
}

const expectSame = (name: ZodFreeBodyName, value: unknown) => {
  expect(outcome(INVOICE_BODIES[name], value), JSON.stringify(value)).toEqual(outcome(REQUEST_SCHEMAS[name], value));
};

const UUID = '01a225b8-fccc-7c46-a21c-4e1337f8fa68';
/** Values around every rule of the fields (types, lengths in UTF-16 units, number ranges, amount forms, UUID forms). */
const EDGES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  1,
  -1,
  1.5,
  84532,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53),
  1e308,
  '',
  ' ',
  'a',
  'USDC',
  'x'.repeat(32),
  'x'.repeat(33),
  'x'.repeat(255),
  'x'.repeat(256),
  '😀'.repeat(16),
  '😀'.repeat(17),
  '😀'.repeat(128),
  '😀'.repeat(129),
  `${'x'.repeat(254)}😀`,
  `${'x'.repeat(255)}😀`,
  '\ud83d'.repeat(33),
  `${'\ude00'.repeat(16)}\ud83d`,
  '25.00',
  '0',
  '0.00',
  '0.000001',
  '0.0000001',
  '00.1',
  '.5',
  '5.',
  '1e5',
  '-1',
  '+1',
  ' 1',
  '1 ',
  '999999999999999999',
  '9999999999999999999',
  '1234567890123456789.5',
  UUID,
  UUID.toUpperCase(),
  UUID.replaceAll('-', ''),
  `{${UUID}}`,
  `${UUID} `,
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'g1a225b8-fccc-7c46-a21c-4e1337f8fa68',
  {},
  [],
  ['25.00'],
  { amount: '25.00' },
];

const FIELDS = ['merchantId', 'amount', 'referenceId', 'networkId', 'token'] as const;
const VALID = { merchantId: UUID, amount: '25.00', referenceId: 'order-1', networkId: 84532, token: 'USDC' };

describe('the invoice creates validated without zod', () => {
  it('have the fields of their zod schemas, in the same order', () => {
    for (const name of NAMES) expect(Object.keys(INVOICE_BODIES[name].shape)).toEqual(Object.keys(REQUEST_SCHEMAS[name].shape));
  });

  it('answer as zod does for every edge value in every field, the others valid or left out', () => {
    for (const name of NAMES) {
      for (const field of FIELDS) {
        for (const value of EDGES) {
          expectSame(name, { ...VALID, [field]: value });
          expectSame(name, { [field]: value });
          expectSame(name, { amount: '1.00', [field]: value, extra: value });
        }
      }
    }
  });

  it('answer as zod does for what is not an object', () => {
    for (const name of NAMES) for (const value of [undefined, null, 1, 'body', [], [VALID], true]) expectSame(name, value);
  });

  it('answer as zod does for generated bodies: each field left out, an edge value or any JSON', () => {
    const field = fc.oneof(fc.constant(undefined), fc.constantFrom(...EDGES), junk, fc.string({ maxLength: 40 }), fc.double(), fc.integer());
    const body = fc.record({ merchantId: field, amount: field, referenceId: field, networkId: field, token: field, other: junk }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.constantFrom(...NAMES), body, (name, value) => {
        expectSame(name, value);
      }),
      { numRuns: 5000, seed: 44 },
    );
  });
});
