import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { expectExactError } from '../helpers/api-response.js';

/** Every row of CONTRACT §2's table, through real HTTP against an emulator on port 0. */
// Raw HTTP on purpose: statuses, headers and bodies the typed client would hide or refuse to send are the subject.
let emu: TestEmulator;
let pt: string; // test partner key
let mk: string; // test merchant key
let merchantId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  pt = emu.keys.test.partnerKey;
  mk = emu.keys.test.merchantKey;
  merchantId = emu.keys.test.merchantId;
});
afterAll(() => emu.stop());

const newInvoice = (body: unknown = { amount: '10.00' }) => emu.call('POST', '/v1/invoices', { key: mk, body, idempotencyKey: ikey() });

describe('successes', () => {
  it('create, new resource: 201', async () => {
    const res = await newInvoice();
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('CREATED');
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('create, idempotent replay: 200, Idempotent-Replayed: true, identical body', async () => {
    const key = ikey();
    const first = await emu.call('POST', '/v1/partner/invoices', { key: pt, body: { merchantId, amount: '5.5' }, idempotencyKey: key });
    const again = await emu.call('POST', '/v1/partner/invoices', { key: pt, body: { amount: '5.5', merchantId }, idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('PUT webhook (create or update) and GET: 200', async () => {
    const put = await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: 'http://localhost:3000/hooks', secret: 'whsec_0123456789abcdef' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ url: 'http://localhost:3000/hooks', enabled: true, secretConfigured: true, environment: 'test', customHeaders: {} });
    expect(put.body).not.toHaveProperty('secret');
    const update = await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: 'https://example.com/hooks', enabled: false } });
    expect(update.status).toBe(200);
    expect(update.body).toMatchObject({ id: put.body.id, url: 'https://example.com/hooks', enabled: false, secretConfigured: true });
    const get = await emu.call('GET', '/v1/partner/webhook', { key: pt });
    expect(get.status).toBe(200);
    expect(get.body).toEqual(update.body);
  });
});

describe('keys', () => {
  it.each([
    ['missing', undefined],
    ['malformed', 'pt_test_short'],
    ['unknown', `pt_test_${'a'.repeat(32)}`],
    ['unknown merchant key', `test_${'Z'.repeat(32)}`],
  ])('%s key: 401 unauthorized', async (_name, key) => {
    expectExactError(await emu.call('GET', '/v1/partner/webhook', key ? { key } : {}), 401, 'unauthorized');
  });

  it('a non-Bearer scheme: 401', async () => {
    expectExactError(await emu.call('GET', '/v1/partner/webhook', { headers: { authorization: `Basic ${pt}` } }), 401, 'unauthorized');
  });

  it('merchant key on a partner endpoint, and the reverse: 403 forbidden_key_type', async () => {
    expectExactError(await emu.call('GET', '/v1/partner/webhook', { key: mk }), 403, 'forbidden_key_type');
    expectExactError(await emu.call('POST', '/v1/partner/merchants', { key: mk, body: {}, idempotencyKey: ikey() }), 403, 'forbidden_key_type');
    expectExactError(await emu.call('POST', '/v1/invoices', { key: pt, body: { amount: '1' }, idempotencyKey: ikey() }), 403, 'forbidden_key_type');
  });
});

describe('routes', () => {
  it('unknown route: 404 not_found', async () => {
    expectExactError(await emu.call('GET', '/v1/nothing-here', { key: pt }), 404, 'not_found');
    expectExactError(await emu.call('GET', '/', {}), 404, 'not_found');
  });

  it('wrong method on a known route: 405 method_not_allowed with Allow', async () => {
    const res = await emu.call('DELETE', '/v1/partner/webhook', { key: pt });
    expectExactError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('PUT, GET');
  });
});

describe('resources absent or owned elsewhere: 404 with the resource code', () => {
  it('merchant_not_found', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectExactError(await emu.call('GET', `/v1/partner/merchants/${unknown}`, { key: pt }), 404, 'merchant_not_found');
    // The live merchant of the same partner is in another environment: not visible with a test key.
    expectExactError(await emu.call('GET', `/v1/partner/merchants/${emu.keys.live.merchantId}`, { key: pt }), 404, 'merchant_not_found');
    expectExactError(
      await emu.call('POST', '/v1/partner/invoices', { key: pt, body: { merchantId: emu.keys.live.merchantId, amount: '1' }, idempotencyKey: ikey() }),
      404,
      'merchant_not_found',
      'merchantId',
    );
  });

  it('invoice_not_found', async () => {
    const live = await emu.call('POST', '/v1/invoices', { key: emu.keys.live.merchantKey, body: { amount: '1' }, idempotencyKey: ikey() });
    expect(live.status).toBe(201);
    expectExactError(await emu.call('GET', `/v1/partner/invoices/${live.body.id}`, { key: pt }), 404, 'invoice_not_found');
    expectExactError(await emu.call('GET', `/v1/invoices/${live.body.id}`, { key: mk }), 404, 'invoice_not_found');
    expectExactError(await emu.call('GET', '/v1/invoices/not-a-uuid', { key: mk }), 404, 'invoice_not_found');
  });

  it('webhook_not_configured', async () => {
    expectExactError(await emu.call('GET', '/v1/partner/webhook', { key: emu.keys.live.partnerKey }), 404, 'webhook_not_configured');
  });
});

describe('bodies', () => {
  const post = (raw: string | Buffer, contentType = 'application/json') =>
    emu.call('POST', '/v1/invoices', { key: mk, raw, idempotencyKey: ikey(), headers: { 'content-type': contentType } });

  it.each([
    ['not JSON', '{"amount":'],
    ['an array', '[1,2]'],
    ['a string', '"x"'],
    ['null', 'null'],
    ['empty', ''],
  ])('body %s: 400 invalid_json', async (_name, raw) => {
    expectExactError(await post(raw), 400, 'invalid_json');
  });

  it('Content-Type not application/json on a body: 415', async () => {
    expectExactError(await post('{"amount":"1"}', 'text/plain'), 415, 'unsupported_media_type');
    expectExactError(await emu.call('POST', '/v1/invoices', { key: mk, raw: '{"amount":"1"}', idempotencyKey: ikey() }), 415, 'unsupported_media_type');
    // Parameters and case are fine.
    expect((await post('{"amount":"1"}', 'Application/JSON; charset=utf-8')).status).toBe(201);
  });

  it('body over 1 MiB: 413 payload_too_large', async () => {
    const huge = JSON.stringify({ amount: '1', referenceId: 'x'.repeat(1024 * 1024) });
    expectExactError(await post(huge), 413, 'payload_too_large');
  });

  it('body over 1 MiB without Content-Length (chunked): 413', async () => {
    const url = new URL(emu.url);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: '/v1/invoices',
          method: 'POST',
          headers: { authorization: `Bearer ${mk}`, 'content-type': 'application/json', 'idempotency-key': ikey() },
        },
        (r) => {
          let body = '';
          r.on('data', (c) => (body += c)).on('end', () => resolve({ status: r.statusCode!, body }));
        },
      );
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      for (let i = 0; i < 20; i++) req.write(chunk);
      req.end();
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('payload_too_large');
  });

  it('field missing or invalid: 400 validation_failed naming the field', async () => {
    expectExactError(await newInvoice({}), 400, 'validation_failed', 'amount');
    expectExactError(await newInvoice({ amount: 10 }), 400, 'validation_failed', 'amount');
    expectExactError(await newInvoice({ amount: '0' }), 400, 'validation_failed', 'amount');
    expectExactError(await newInvoice({ amount: '1.1234567' }), 400, 'validation_failed', 'amount');
    expectExactError(await newInvoice({ amount: '01' }), 400, 'validation_failed', 'amount');
    expectExactError(await newInvoice({ amount: '1', networkId: '84532' }), 400, 'validation_failed', 'networkId');
    expectExactError(await newInvoice({ amount: '1', referenceId: 'x'.repeat(256) }), 400, 'validation_failed', 'referenceId');
    expectExactError(
      await emu.call('POST', '/v1/partner/invoices', { key: pt, body: { amount: '1', merchantId: 'nope' }, idempotencyKey: ikey() }),
      400,
      'validation_failed',
      'merchantId',
    );
    expectExactError(
      await emu.call('POST', '/v1/partner/merchants', { key: pt, body: { externalTenantId: 't', name: 'n', email: 'not-an-email' }, idempotencyKey: ikey() }),
      400,
      'validation_failed',
      'email',
    );
    expectExactError(await emu.call('GET', '/v1/invoices?limit=0', { key: mk }), 400, 'validation_failed', 'limit');
    expectExactError(await emu.call('GET', '/v1/invoices?limit=101', { key: mk }), 400, 'validation_failed', 'limit');
  });

  it('environment in any body: 400 environment_not_allowed', async () => {
    expectExactError(await newInvoice({ amount: '1', environment: 'test' }), 400, 'environment_not_allowed', 'environment');
    expectExactError(
      await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: 'http://x.test', secret: 'a'.repeat(16), environment: 'live' } }),
      400,
      'environment_not_allowed',
      'environment',
    );
    expectExactError(
      await emu.call('POST', '/v1/partner/merchants', {
        key: pt,
        body: { externalTenantId: 't', name: 'n', email: 'a@b.co', environment: 'live' },
        idempotencyKey: ikey(),
      }),
      400,
      'environment_not_allowed',
      'environment',
    );
  });

  it.each(['fee', 'platformFee', 'FEE_PERCENT', 'feeBps'])('fee field %s in create-merchant: 400 fee_fields_not_allowed', async (field) => {
    expectExactError(
      await emu.call('POST', '/v1/partner/merchants', {
        key: pt,
        body: { externalTenantId: 't-fee', name: 'n', email: 'a@b.co', [field]: 1 },
        idempotencyKey: ikey(),
      }),
      400,
      'fee_fields_not_allowed',
      field,
    );
  });

  it('a nested fee field is refused too, with its path', async () => {
    expectExactError(
      await emu.call('POST', '/v1/partner/merchants', {
        key: pt,
        body: { externalTenantId: 't-fee', name: 'n', email: 'a@b.co', settings: { feeRate: 1 } },
        idempotencyKey: ikey(),
      }),
      400,
      'fee_fields_not_allowed',
      'settings.feeRate',
    );
  });

  it('unknown fields are ignored with a Warning header', async () => {
    const res = await newInvoice({ amount: '1', metadata: { a: 1 }, colour: 'blue' });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toContain('metadata, colour');
  });
});

describe('idempotency keys', () => {
  it('missing on a create: 400 idempotency_key_required', async () => {
    expectExactError(await emu.call('POST', '/v1/invoices', { key: mk, body: { amount: '1' } }), 400, 'idempotency_key_required');
  });

  it('empty or longer than 255: 400 idempotency_key_invalid', async () => {
    expectExactError(await emu.call('POST', '/v1/invoices', { key: mk, body: { amount: '1' }, idempotencyKey: '' }), 400, 'idempotency_key_invalid');
    expectExactError(
      await emu.call('POST', '/v1/invoices', { key: mk, body: { amount: '1' }, idempotencyKey: 'k'.repeat(256) }),
      400,
      'idempotency_key_invalid',
    );
    expect((await emu.call('POST', '/v1/invoices', { key: mk, body: { amount: '1' }, idempotencyKey: 'k'.repeat(255) })).status).toBe(201);
  });

  it('same key, different body: 422 idempotency_key_reused', async () => {
    const key = ikey();
    expect((await emu.call('POST', '/v1/invoices', { key: mk, body: { amount: '1' }, idempotencyKey: key })).status).toBe(201);
    expectExactError(await emu.call('POST', '/v1/invoices', { key: mk, body: { amount: '2' }, idempotencyKey: key }), 422, 'idempotency_key_reused');
  });

  it('same key while the first request is still in flight: 409 idempotency_key_in_progress', async () => {
    const key = ikey();
    const url = new URL(emu.url);
    const body = JSON.stringify({ amount: '3.00' });
    // The first request sends its headers and half its body, then waits.
    let finishFirst!: () => void;
    const first = new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: '/v1/invoices',
          method: 'POST',
          headers: { authorization: `Bearer ${mk}`, 'content-type': 'application/json', 'idempotency-key': key, 'content-length': Buffer.byteLength(body) },
        },
        (r) => {
          r.resume();
          r.on('end', () => resolve(r.statusCode!));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      finishFirst = () => req.end(body.slice(5));
    });
    await new Promise((r) => setTimeout(r, 100));
    expectExactError(
      await emu.call('POST', '/v1/invoices', { key: mk, raw: body, idempotencyKey: key, headers: { 'content-type': 'application/json' } }),
      409,
      'idempotency_key_in_progress',
    );
    finishFirst();
    expect(await first).toBe(201);
    const replay = await emu.call('POST', '/v1/invoices', { key: mk, raw: body, idempotencyKey: key, headers: { 'content-type': 'application/json' } });
    expect(replay.status).toBe(200);
  });
});

describe('domain conflicts', () => {
  it('second merchant with an externalTenantId the partner already uses: 409 external_tenant_id_taken', async () => {
    const body = { externalTenantId: 'tenant-409', name: 'Shop', email: 'shop@example.com' };
    expect((await emu.call('POST', '/v1/partner/merchants', { key: pt, body, idempotencyKey: ikey() })).status).toBe(201);
    expectExactError(
      await emu.call('POST', '/v1/partner/merchants', { key: pt, body, idempotencyKey: ikey() }),
      409,
      'external_tenant_id_taken',
      'externalTenantId',
    );
    // The same tenant in the other environment is a different merchant.
    expect((await emu.call('POST', '/v1/partner/merchants', { key: emu.keys.live.partnerKey, body, idempotencyKey: ikey() })).status).toBe(201);
  });

  it('networkId/token not enabled for the merchant: 400 route_not_available', async () => {
    expectExactError(await newInvoice({ amount: '1', networkId: 1 }), 400, 'route_not_available', 'networkId');
    expectExactError(await newInvoice({ amount: '1', token: 'DAI' }), 400, 'route_not_available', 'token');
    expectExactError(await newInvoice({ amount: '1', networkId: 84532, token: 'USDT' }), 400, 'route_not_available', 'token');
  });

  it('webhook URL that breaks the environment rule: 400 webhook_url_not_allowed', async () => {
    const live = emu.keys.live.partnerKey;
    for (const url of [
      'http://example.com/hooks',
      'https://localhost/hooks',
      'https://127.0.0.1/hooks',
      'https://abc.trycloudflare.com/h',
      'https://shop.internal/h',
    ]) {
      expectExactError(
        await emu.call('PUT', '/v1/partner/webhook', { key: live, body: { url, secret: 'a'.repeat(16) } }),
        400,
        'webhook_url_not_allowed',
        'url',
      );
    }
    expectExactError(await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: 'ftp://example.com' } }), 400, 'webhook_url_not_allowed', 'url');
    expect((await emu.call('PUT', '/v1/partner/webhook', { key: live, body: { url: 'https://hooks.example.com/x', secret: 'a'.repeat(16) } })).status).toBe(
      200,
    );
  });

  it('first webhook PUT without secret: 400 webhook_secret_required; bad length: webhook_secret_invalid', async () => {
    const partner = await emu.call('POST', '/__emulator/partners', { body: {} });
    const key = partner.body.test.partnerKey as string;
    expectExactError(await emu.call('PUT', '/v1/partner/webhook', { key, body: { url: 'http://localhost:1/h' } }), 400, 'webhook_secret_required', 'secret');
    expectExactError(
      await emu.call('PUT', '/v1/partner/webhook', { key, body: { url: 'http://localhost:1/h', secret: 'a'.repeat(15) } }),
      400,
      'webhook_secret_invalid',
      'secret',
    );
    expectExactError(
      await emu.call('PUT', '/v1/partner/webhook', { key, body: { url: 'http://localhost:1/h', secret: 'a'.repeat(256) } }),
      400,
      'webhook_secret_invalid',
      'secret',
    );
    expect((await emu.call('PUT', '/v1/partner/webhook', { key, body: { url: 'http://localhost:1/h', secret: 'a'.repeat(255) } })).status).toBe(200);
    // Later updates keep the stored secret when it is omitted.
    const update = await emu.call('PUT', '/v1/partner/webhook', { key, body: { url: 'http://localhost:2/h' } });
    expect(update.status).toBe(200);
    expect(update.body.secretConfigured).toBe(true);
  });

  it('customHeaders: valid ones stored; reserved, invalid and too many refused', async () => {
    const ok = await emu.call('PUT', '/v1/partner/webhook', {
      key: pt,
      body: { url: 'http://localhost:3000/h', customHeaders: { 'X-Tenant': 'a b', Authorization: 'Bearer x' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.customHeaders).toEqual({ 'X-Tenant': 'a b', Authorization: 'Bearer x' });
    expectExactError(
      await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: 'http://x.test', customHeaders: { 'User-Agent': 'me' } } }),
      400,
      'validation_failed',
      'customHeaders.User-Agent',
    );
    expectExactError(
      await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: 'http://x.test', customHeaders: { 'Bad Name': 'x' } } }),
      400,
      'validation_failed',
      'customHeaders.Bad Name',
    );
    expectExactError(
      await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: 'http://x.test', customHeaders: { 'X-A': 'a\r\nInjected: 1' } } }),
      400,
      'validation_failed',
      'customHeaders.X-A',
    );
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
    expectExactError(
      await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: 'http://x.test', customHeaders: many } }),
      400,
      'validation_failed',
      'customHeaders',
    );
  });
});

describe('anything unexpected', () => {
  it('500 internal_error with a request id and no stack trace', async () => {
    // Break the database underneath the emulator: the handler throws something that is not an ApiError.
    const other = await startTestEmulator();
    const errors: string[] = [];
    // Only the request's own error: the scheduler, on the same broken database, may report too.
    other.on((e) => e.type === 'error' && e.requestId !== undefined && errors.push(e.message));
    await other.query('DROP TABLE idempotency_keys');
    const res = await other.call('POST', '/v1/invoices', { key: other.keys.test.merchantKey, body: { amount: '1' }, idempotencyKey: ikey() });
    expectExactError(res, 500, 'internal_error');
    expect(res.body.error.message).toContain(res.headers.get('request-id'));
    expect(res.text).not.toMatch(/at \w+ \(|\.ts:\d+/);
    expect(errors.length).toBe(1);
    await other.stop();
  });
});
