/** fast-check arbitraries for bad-input bodies, and `build`, which turns chosen parts into a raw request. */
import fc from 'fast-check';
import { type Endpoint, ROUTE_LOCKS } from './bad-input-endpoints.js';
import { bigString, junk } from './bad-input-values.js';
import type { RawRequest } from './raw-http.js';

/** A fee field name: "fee" in any case, with letters around it. */
export const feeName = fc
  .tuple(fc.stringMatching(/^[a-zA-Z_]{0,8}$/), fc.mixedCase(fc.constant('fee')), fc.stringMatching(/^[a-zA-Z_]{0,8}$/))
  .map(([a, f, b]) => a + f + b);
/** A field name the schemas do not know and that is not refused for its name. */
export const unknownName = fc
  .string({ minLength: 1, maxLength: 20 })
  .filter(
    (k) =>
      !/fee/i.test(k) &&
      k !== 'environment' &&
      ![
        'amount',
        'merchantId',
        'referenceId',
        'networkId',
        'token',
        'externalTenantId',
        'email',
        'name',
        'url',
        'secret',
        'enabled',
        'customHeaders',
        '__proto__',
      ].includes(k),
  );

/** A body object for `e`: each field omitted, valid or invalid; extra fields; sometimes forbidden ones. */
export const structuredBody = (e: Endpoint): fc.Arbitrary<Record<string, unknown>> => {
  const fields = e.fields();
  const entries = Object.entries(fields).map(([name, f]) =>
    fc
      .oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 3, arbitrary: (f.plausible ?? f.valid).map((v) => ({ v })) },
        { weight: 2, arbitrary: f.invalid.map(({ value }) => ({ v: value })) },
      )
      .map((x) => [name, x] as const),
  );
  return fc
    .tuple(
      fc.tuple(...entries),
      fc.array(fc.tuple(fc.oneof(unknownName, fc.constantFrom('environment', 'fee', 'platformFeeBps', 'Environment', 'ENVIRONMENT')), junk), { maxLength: 3 }),
      fc.option(fc.constantFrom(...ROUTE_LOCKS), { nil: undefined }),
    )
    .map(([chosen, extra, lock]) => {
      const body: Record<string, unknown> = {};
      for (const [name, x] of chosen) if (x) body[name] = x.v;
      if (lock && e.path.includes('invoices')) Object.assign(body, lock);
      for (const [k, v] of extra) Object.defineProperty(body, k, { value: v, enumerable: true, writable: true, configurable: true });
      return body;
    });
};

/** A valid body for `e` (fresh tenant each time). */
export const validBody = (e: Endpoint): fc.Arbitrary<Record<string, unknown>> => {
  const fields = e.fields();
  const required = Object.entries(fields).filter(([, f]) => f.required || (e.path === '/v1/partner/webhook' && fields.secret === f));
  return fc.tuple(...required.map(([name, f]) => f.valid.map((v) => [name, v] as const))).map((pairs) => Object.fromEntries(pairs));
};

export type BodyChoice = { kind: 'json'; value: unknown } | { kind: 'bytes'; value: Uint8Array } | { kind: 'text'; value: string } | { kind: 'none' };

export const nonJsonText = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"amount":',
    "{'amount':'1.00'}",
    '{"amount":"1.00",}',
    'amount=1.00',
    'undefined',
    'NaN',
    '[1,2',
    '{"a":1}{"b":2}',
    '\uFEFF{"amount":"1.00"}',
    '{"amount":"1.00"',
    'nul',
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

export const bodyFor = (e: Endpoint): fc.Arbitrary<BodyChoice> =>
  fc.oneof(
    { weight: 6, arbitrary: structuredBody(e).map((value) => ({ kind: 'json' as const, value })) },
    { weight: 2, arbitrary: junk.map((value) => ({ kind: 'json' as const, value })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((value) => ({ kind: 'bytes' as const, value })) },
    { weight: 1, arbitrary: nonJsonText.map((value) => ({ kind: 'text' as const, value })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 1, arbitrary: fc.tuple(structuredBody(e), bigString).map(([b, s]) => ({ kind: 'json' as const, value: { ...b, referenceId: s, name: s } })) },
  );

export function encode(body: BodyChoice): string | Uint8Array | undefined {
  switch (body.kind) {
    case 'json':
      return JSON.stringify(body.value) ?? 'null';
    case 'bytes':
      return body.value;
    case 'text':
      return body.value;
    case 'none':
      return undefined;
  }
}

/**
 * Webhook configurations are saved disabled: an enabled one would make every later invoice start
 * delivery attempts in the background, and those would change the database while a refused request
 * is being checked. A non-boolean `enabled` (a validation case) is left alone.
 */
export function tame(e: Endpoint, body: BodyChoice): BodyChoice {
  if (e.path !== '/v1/partner/webhook' || body.kind !== 'json') return body;
  const v = body.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return body;
  const enabled = (v as Record<string, unknown>).enabled;
  if (enabled !== undefined && typeof enabled !== 'boolean') return body;
  return { kind: 'json', value: { ...v, enabled: false } };
}

export function build(
  e: Endpoint,
  parts: { auth?: string | undefined; idem?: string | undefined; type?: string | undefined; body: BodyChoice },
  method: string = e.method,
): RawRequest {
  const headers: Record<string, string> = {};
  if (parts.auth !== undefined) headers.authorization = parts.auth;
  if (parts.idem !== undefined) headers['idempotency-key'] = parts.idem;
  if (parts.type !== undefined) headers['content-type'] = parts.type;
  const body = encode(tame(e, parts.body));
  if (body === undefined) headers['content-length'] = '0';
  return { method, path: e.path, headers, body };
}

/** What a body parses to on the server, when it is a JSON object. */
export function asObject(body: string | Uint8Array | undefined): Record<string, unknown> | undefined {
  if (body === undefined) return undefined;
  try {
    const v = JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
