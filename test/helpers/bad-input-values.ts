/** fast-check arbitraries for the values the bad-input tests put in headers and bodies. */
import fc from 'fast-check';

export const AMOUNT = /^(0|[1-9][0-9]*)(\.[0-9]{1,6})?$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

let unique = 0;
export const fresh = (prefix: string) => `${prefix}-${process.pid}-${++unique}`;

/** Characters a header value may carry on the wire (visible ASCII and Latin-1, no CR/LF/NUL). */
export const headerChar = fc.oneof(
  { weight: 9, arbitrary: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom(' ', '\t') },
  { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0xff }).map((c) => String.fromCharCode(c)) },
);
export const headerString = (minLength: number, maxLength: number) => fc.string({ unit: headerChar, minLength, maxLength });
export const visible = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength, maxLength });
export const base62 = (length: number) => fc.string({ unit: fc.constantFrom(...BASE62), minLength: length, maxLength: length });

/** Any JSON value, nested a little; sometimes with keys that tempt prototype pollution. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      JSON.parse('{"__proto__":null}'),
      JSON.parse('{"__proto__":{"polluted":true}}'),
      { constructor: { prototype: 1 } },
      [[[[[]]]]],
      '',
      0,
      -0,
      1e308,
      -1,
      null,
      true,
      false,
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);
export const notA = (type: 'string' | 'number' | 'boolean' | 'object') =>
  junk.filter((v) => (type === 'object' ? v === null || typeof v !== 'object' || Array.isArray(v) : typeof v !== type));

export const bigString = fc.integer({ min: 256, max: 40_000 }).map((n) => 'x'.repeat(n));
