/**
 * Paths, methods and queries: an unknown path is 404, a wrong method 405 with Allow, an id that is
 * absent or someone else's the resource's own 404 (never a leak), and junk in a list query 400
 * naming the parameter. Every request also meets `exercise()`'s invariants (bad-input-emulator.ts).
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { exercise, expectCode, runs, useBadInputEmulator, world } from '../helpers/bad-input-emulator.js';
import { allKeys, type Principal } from '../helpers/bad-input-endpoints.js';
import { badAuthorization } from '../helpers/bad-input-headers.js';

useBadInputEmulator();

describe('GET endpoints, unknown paths and wrong methods', () => {
  const TEMPLATES: [string, string][] = [
    ['POST', '/v1/partner/merchants'],
    ['GET', '/v1/partner/merchants'],
    ['GET', '/v1/partner/merchants/:id'],
    ['POST', '/v1/partner/invoices'],
    ['GET', '/v1/partner/invoices'],
    ['GET', '/v1/partner/invoices/:id'],
    ['POST', '/v1/invoices'],
    ['GET', '/v1/invoices'],
    ['GET', '/v1/invoices/:id'],
    ['PUT', '/v1/partner/webhook'],
    ['GET', '/v1/partner/webhook'],
  ];

  /** Methods the known routes allow for this path; null when no known route matches it. */
  function allowedFor(path: string): string[] | null {
    const segs = path.split('?')[0]!.split('/').filter(Boolean);
    const allowed = TEMPLATES.filter(([, t]) => {
      const ts = t.split('/').filter(Boolean);
      return ts.length === segs.length && ts.every((s, i) => s.startsWith(':') || s === segs[i]);
    }).map(([m]) => m);
    return allowed.length ? allowed : null;
  }

  const segment = fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'v1',
        'partner',
        'invoices',
        'merchants',
        'webhook',
        'deliveries',
        '..',
        '.',
        '%zz',
        '%',
        '%2F',
        '%00',
        '__emulator',
        'openapi.json',
        'test_helpers',
      ),
    },
    { weight: 1, arbitrary: fc.uuid() },
  );
  const randomPath = fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => `/${s.join('/')}`);

  it('an unknown path is 404 not_found, whatever the method and key', async () => {
    const arb = fc.record({
      // Leaves out the control plane, the document, the pages and routes of the contract not served yet.
      path: randomPath.filter(
        (p) => allowedFor(p) === null && !/^\/(__emulator|openapi\.json|checkout|bind)(\/|$)/.test(p) && !/\/(deliveries|test_helpers)(\/|$)/.test(p),
      ),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
      auth: fc.oneof(
        badAuthorization,
        fc
          .constant(null)
          .chain(() => fc.constantFrom(...allKeys()))
          .map((k) => `Bearer ${k}`),
      ),
      body: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ path, method, auth, body }) => {
        const headers: Record<string, string> = {};
        if (auth !== undefined) headers.authorization = auth;
        if (body !== undefined) headers['content-type'] = 'application/json';
        expectCode(await exercise({ method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) }), 404, 'not_found');
      }),
      runs(200),
    );
  });

  it('a wrong method on a known path is 405 method_not_allowed with Allow', async () => {
    const arb = fc.record({
      template: fc.constantFrom(...TEMPLATES.map(([, t]) => t)),
      id: fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent)),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
      auth: fc.oneof(
        badAuthorization,
        fc
          .constant(null)
          .chain(() => fc.constantFrom(...allKeys()))
          .map((k) => `Bearer ${k}`),
      ),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ template, id, method, auth }) => {
        const path = template.replace(':id', id);
        const allowed = allowedFor(path)!;
        fc.pre(!allowed.includes(method));
        const headers: Record<string, string> = {};
        if (auth !== undefined) headers.authorization = auth;
        const outcome = await exercise({ method, path, headers });
        expectCode(outcome, 405, 'method_not_allowed');
        const allow = String(outcome.res.headers.allow ?? '')
          .split(/,\s*/)
          .sort();
        if (JSON.stringify(allow) !== JSON.stringify([...allowed].sort()))
          throw new Error(`Allow is ${String(outcome.res.headers.allow)}, expected ${allowed.join(', ')}`);
      }),
      runs(150),
    );
  });

  it('GET by id: absent or someone else’s resource is the resource’s 404, never a leak', async () => {
    const id = fc.oneof(
      fc.uuid(),
      fc.string({ minLength: 1, maxLength: 60 }).map(encodeURIComponent),
      // An id holding U+0000 (PostgreSQL cannot hold one: it names nothing, as on SQLite).
      fc.string({ maxLength: 20 }).map((s) => `${encodeURIComponent(s)}%00`),
      fc.constant(null).chain(() => fc.constantFrom(world.liveInvoiceId, world.otherInvoiceId, world.otherMerchantId, world.keys.live.merchantId)),
    );
    const arb = fc.record({
      kind: fc.constantFrom('partner-merchant', 'partner-invoice', 'merchant-invoice'),
      id,
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ kind, id: raw }) => {
        const [path, key, code] =
          kind === 'partner-merchant'
            ? [`/v1/partner/merchants/${raw}`, world.keys.test.partnerKey, 'merchant_not_found']
            : kind === 'partner-invoice'
              ? [`/v1/partner/invoices/${raw}`, world.keys.test.partnerKey, 'invoice_not_found']
              : [`/v1/invoices/${raw}`, world.keys.test.merchantKey, 'invoice_not_found'];
        const outcome = await exercise({ method: 'GET', path, headers: { authorization: `Bearer ${key}` } });
        if (outcome.res.status === 200) {
          // Only the caller's own resources are visible.
          const body = JSON.parse(outcome.res.text);
          const owner = kind === 'partner-merchant' ? body.partnerId : kind === 'partner-invoice' ? body.merchantId : undefined;
          if (body.environment !== undefined && body.environment !== 'test') throw new Error(`a test key saw a ${body.environment} resource`);
          if (kind === 'partner-merchant' && owner !== world.keys.partnerId) throw new Error('a partner saw another partner’s merchant');
          if ([world.liveInvoiceId, world.otherInvoiceId, world.otherMerchantId, world.keys.live.merchantId].includes(raw)) throw new Error(`saw ${raw}`);
        } else {
          expectCode(outcome, 404, code);
        }
      }),
      runs(200),
    );
  });

  it('list queries: junk in limit, startingAfter, status or merchantId is 400 validation_failed naming it', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.integer({ min: -1000, max: 1000 }).map(String),
      fc.constantFrom('0', '101', '1.5', '1e2', '', ' ', 'NaN', '-0', '0x10', 'CREATED', 'paid', '20'),
      fc.uuid(),
      fc.constant(null).chain(() => fc.constantFrom(world.otherMerchantId, world.otherInvoiceId, world.liveInvoiceId)),
    );
    const lists: { path: string; key: Principal; params: string[] }[] = [
      { path: '/v1/partner/merchants', key: 'partner', params: ['limit', 'startingAfter'] },
      { path: '/v1/partner/invoices', key: 'partner', params: ['limit', 'startingAfter', 'status', 'merchantId'] },
      { path: '/v1/invoices', key: 'merchant', params: ['limit', 'startingAfter', 'status'] },
    ];
    const arb = fc.record({
      list: fc.constantFrom(...lists),
      query: fc.array(fc.tuple(fc.constantFrom('limit', 'startingAfter', 'status', 'merchantId', 'junk'), value), { maxLength: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ list, query }) => {
        const search = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        const key = list.key === 'partner' ? world.keys.test.partnerKey : world.keys.test.merchantKey;
        const outcome = await exercise({ method: 'GET', path: `${list.path}${search ? `?${search}` : ''}`, headers: { authorization: `Bearer ${key}` } });
        if (outcome.res.status === 200) {
          const body = JSON.parse(outcome.res.text);
          if (!Array.isArray(body.data) || typeof body.hasMore !== 'boolean') throw new Error(`not a list: ${outcome.res.text.slice(0, 200)}`);
          return;
        }
        const err = outcome.error!;
        if (outcome.res.status === 404 && err.code === 'merchant_not_found' && list.params.includes('merchantId')) return;
        expectCode(outcome, 400, 'validation_failed');
        if (!list.params.includes(String(err.param))) throw new Error(`param ${String(err.param)} is not a query parameter of ${list.path}`);
      }),
      runs(200),
    );
  });
});
