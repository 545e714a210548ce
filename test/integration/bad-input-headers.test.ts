/**
 * What the headers can get wrong: a missing, malformed, unknown or wrong-kind key; an
 * Idempotency-Key missing, blank, too long or reused; and requests Node's HTTP parser refuses
 * (oversized headers, two Content-Lengths, broken chunking, control characters, no HTTP at all),
 * which must still get the contract's error shape and a Request-Id, and store nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyFor, build, validBody } from '../helpers/bad-input-bodies.js';
import { emu, exercise, expectCode, runs, useBadInputEmulator, world } from '../helpers/bad-input-emulator.js';
import { ENDPOINTS, type Principal, rightKey } from '../helpers/bad-input-endpoints.js';
import { badAuthorization, contentType, idempotencyKey, overlongIdempotencyKey } from '../helpers/bad-input-headers.js';
import { visible } from '../helpers/bad-input-values.js';
import { snapshot } from '../helpers/db-snapshot.js';
import { parseErrorBody } from '../helpers/error-shape.js';
import { rawExchange } from '../helpers/raw-http.js';

useBadInputEmulator();

describe('authentication', () => {
  const AUTHED_GETS = () => [
    '/v1/partner/merchants',
    `/v1/partner/merchants/${world.keys.test.merchantId}`,
    '/v1/partner/invoices',
    `/v1/partner/invoices/${world.invoiceId}`,
    '/v1/invoices',
    `/v1/invoices/${world.invoiceId}`,
    '/v1/partner/webhook',
  ];

  it('a missing, malformed or unknown key is 401 unauthorized on every endpoint, before anything else', async () => {
    const target = fc.oneof(
      fc
        .constantFrom(...ENDPOINTS)
        .chain((e) =>
          fc.record({ e: fc.constant(e), body: bodyFor(e), idem: idempotencyKey, type: contentType }).map((x) => build(x.e, { ...x, auth: undefined })),
        ),
      fc
        .constant(null)
        .chain(() => fc.constantFrom(...AUTHED_GETS()))
        .map((path) => ({ method: 'GET', path, headers: {} as Record<string, string> })),
    );
    await fc.assert(
      fc.asyncProperty(target, badAuthorization, async (req, auth) => {
        const headers = { ...req.headers };
        if (auth !== undefined) headers.authorization = auth;
        expectCode(await exercise({ ...req, headers }), 401, 'unauthorized');
      }),
      runs(250),
    );
  });

  it('a key of the wrong kind is 403 forbidden_key_type', async () => {
    const gets: [string, Principal][] = [
      ['/v1/partner/merchants', 'partner'],
      ['/v1/partner/invoices', 'partner'],
      ['/v1/partner/webhook', 'partner'],
      ['/v1/invoices', 'merchant'],
    ];
    const target = fc.oneof(
      fc
        .constantFrom(...ENDPOINTS)
        .chain((e) => fc.record({ e: fc.constant(e), body: bodyFor(e), idem: idempotencyKey, type: contentType, env: fc.constantFrom('test', 'live') }))
        .map((x) => {
          const key =
            x.e.principal === 'partner' ? [world.keys[x.env].merchantKey, world.otherMerchantKey] : [world.keys[x.env].partnerKey, world.otherPartner[x.env]];
          return build(x.e, { ...x, auth: `Bearer ${key[x.env === 'test' ? 0 : 1]}` });
        }),
      fc.constantFrom(...gets).map(([path, p]) => ({
        method: 'GET',
        path,
        headers: { authorization: `Bearer ${p === 'partner' ? world.keys.live.merchantKey : world.otherPartner.test}` },
      })),
    );
    await fc.assert(
      fc.asyncProperty(target, async (req) => expectCode(await exercise(req), 403, 'forbidden_key_type')),
      runs(120),
    );
  });
});

describe('the Idempotency-Key header', () => {
  const creates = ENDPOINTS.filter((e) => e.idempotent);

  it('missing is 400 idempotency_key_required; empty, blank or over 255 is 400 idempotency_key_invalid; both before the body', async () => {
    const header = fc.oneof(
      fc.constant({ value: undefined as string | undefined, code: 'idempotency_key_required' }),
      fc.constantFrom('', ' ', '    ', '\t \t').map((value) => ({ value: value as string | undefined, code: 'idempotency_key_invalid' })),
      overlongIdempotencyKey.map((value) => ({ value: value as string | undefined, code: 'idempotency_key_invalid' })),
    );
    const arb = fc.constantFrom(...creates).chain((e) => fc.record({ e: fc.constant(e), header, body: bodyFor(e), type: contentType }));
    await fc.assert(
      fc.asyncProperty(arb, async ({ e, header: h, body, type }) => {
        expectCode(await exercise(build(e, { auth: `Bearer ${rightKey(e)}`, idem: h.value, type, body })), 400, h.code);
      }),
      runs(200),
    );
  });

  it('exactly 255 characters is accepted, and a different body under a used key is 422 idempotency_key_reused', async () => {
    const arb = fc.constantFrom(...creates).chain((e) => fc.record({ e: fc.constant(e), first: validBody(e), second: validBody(e), key: visible(255, 255) }));
    await fc.assert(
      fc.asyncProperty(arb, async ({ e, first, second, key }) => {
        const created = await exercise(build(e, { auth: `Bearer ${rightKey(e)}`, idem: key, type: 'application/json', body: { kind: 'json', value: first } }));
        if (created.res.status !== 201) throw new Error(`expected 201, got ${created.res.status} ${created.res.text}`);
        const replay = await exercise(build(e, { auth: `Bearer ${rightKey(e)}`, idem: key, type: 'application/json', body: { kind: 'json', value: first } }));
        if (replay.res.status !== 200 || replay.res.headers['idempotent-replayed'] !== 'true' || replay.res.text !== created.res.text) {
          throw new Error(`expected a replay of the first response, got ${replay.res.status} ${replay.res.text}`);
        }
        const changed: Record<string, unknown> = { ...second, referenceId: 'changed' };
        if (e.path === '/v1/partner/merchants') changed.externalTenantId = first.externalTenantId;
        expectCode(
          await exercise(build(e, { auth: `Bearer ${rightKey(e)}`, idem: key, type: 'application/json', body: { kind: 'json', value: changed } })),
          422,
          'idempotency_key_reused',
        );
      }),
      runs(30),
    );
  });
});

describe('requests that are not valid HTTP', () => {
  // Node's HTTP parser refuses these before any route runs; the answer must still be the
  // contract's: a Request-Id and the error shape (CONTRACT §2), and nothing stored.
  it.each([
    [
      'an Authorization header over the header size limit',
      `GET /v1/invoices HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${'k'.repeat(20_000)}\r\n\r\n`,
    ],
    [
      'an Idempotency-Key over the header size limit',
      `POST /v1/invoices HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer test_${'a'.repeat(32)}\r\nIdempotency-Key: ${'i'.repeat(20_000)}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    ],
    [
      'two different Content-Lengths',
      'POST /v1/invoices HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{"a":1',
    ],
    [
      'broken chunked framing',
      'POST /v1/invoices HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
    ['a control character in the Authorization header', 'GET /v1/invoices HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \x01abc\r\n\r\n'],
    ['a request line that is not HTTP', 'HELLO THERE\r\n\r\n'],
  ])('%s: a contract-shaped 4xx with a Request-Id', async (_name, text) => {
    const before = await snapshot(emu);
    const res = await rawExchange(emu.port, text);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers['request-id'] ?? 'missing', `Request-Id of ${res.status} ${JSON.stringify(res.headers)} ${res.text}`).not.toBe('missing');
    expect(parseErrorBody(res.text).error.code).toMatch(/^[a-z_]+$/);
    expect(await snapshot(emu)).toBe(before);
  });

  it('a large but acceptable Authorization header is an ordinary 401', async () => {
    const res = await rawExchange(
      emu.port,
      `GET /v1/invoices HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer ${'k'.repeat(8_000)}\r\n\r\n`,
    );
    expect(res.status).toBe(401);
    expect(res.headers['request-id']).toMatch(/\S/);
    expect(parseErrorBody(res.text).error.code).toBe('unauthorized');
  });
});
