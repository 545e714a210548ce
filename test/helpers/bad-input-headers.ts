/** fast-check arbitraries for the headers of a bad-input request: Authorization, Idempotency-Key, Content-Type. */
import fc from 'fast-check';
import { generateKey } from '../../src/domain/keys.js';
import { allKeys, type Endpoint, rightKey } from './bad-input-endpoints.js';
import { base62, fresh, headerString, visible } from './bad-input-values.js';

/** A well-formed key nobody was issued. */
export const unknownKey = fc.tuple(fc.constantFrom('pt_test_', 'pt_live_', 'test_', 'live_'), base62(32)).map(([p, b]) => p + b);
/** Something that is not a key at all, though it may look like one. */
export const malformedKey = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('pt_test_', 'pt_live_', 'test_', 'live_', 'pt_', 'sk_test_', 'PT_TEST_', 'Test_'),
      fc.integer({ min: 0, max: 64 }).chain((n) => base62(n)),
    )
    .filter(([p, b]) => !(b.length === 32 && ['pt_test_', 'pt_live_', 'test_', 'live_'].includes(p)))
    .map(([p, b]) => p + b),
  fc.tuple(fc.constantFrom('pt_test_', 'test_'), base62(31), fc.constantFrom('-', '_', '!', 'é')).map(([p, b, c]) => p + b + c),
  visible(1, 80),
);

/** An Authorization header that must be refused with 401 whatever the endpoint. */
export const badAuthorization: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Token abc', 'bearer'),
  unknownKey.map((k) => `Bearer ${k}`),
  malformedKey.map((k) => `Bearer ${k}`),
  unknownKey.map((k) => `Basic ${k}`),
  fc.constant(null).map(() => `Bearer ${generateKey('partner', 'test')}`),
  headerString(0, 120),
);

/** Mostly the right key, sometimes anything. */
export const authorizationFor = (e: Endpoint): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(null).map(() => `Bearer ${rightKey(e)}`) },
    { weight: 1, arbitrary: fc.constant(null).map(() => `bearer   ${rightKey(e)}  `) },
    {
      weight: 3,
      arbitrary: fc
        .constant(null)
        .chain(() => fc.constantFrom(...allKeys()))
        .map((k) => `Bearer ${k}`),
    },
    { weight: 3, arbitrary: badAuthorization },
  );

export const overlongIdempotencyKey = fc.integer({ min: 256, max: 1200 }).chain((n) => visible(n, n));
export const idempotencyKey: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null).map(() => fresh('idem')) },
  { weight: 2, arbitrary: visible(1, 255) },
  // Reused keys: replays (200) and reuse with another body (422).
  { weight: 2, arbitrary: fc.constantFrom('fixed-1', 'fixed-2', 'fixed-3') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '   ', '\t') },
  { weight: 1, arbitrary: overlongIdempotencyKey },
  { weight: 1, arbitrary: headerString(1, 300) },
);

export const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8'];
export const WRONG_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonp',
  'application/json-patch+json',
  'json',
  'text/json',
  'application/xml',
  '*/*',
];
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...JSON_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constantFrom(...WRONG_TYPES) },
  { weight: 1, arbitrary: headerString(0, 60) },
);
