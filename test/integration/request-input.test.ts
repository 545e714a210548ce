/**
 * Request input that used to slip through (issue 10): bodies sent to endpoints that take none
 * (CONTRACT §2), bodies holding too many JSON values (§8 "Bounded work per request"), asset names
 * that are Object.prototype keys, and HEAD requests refused by Node's parser.
 * Raw HTTP on purpose: the bodies, methods and framing are ones the typed client never sends.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { expectError } from '../helpers/api-response.js';

let emu: TestEmulator;
let mk: string;
let pt: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  mk = emu.keys.test.merchantKey;
  pt = emu.keys.test.partnerKey;
});
afterAll(() => emu?.stop());

async function invoice(): Promise<string> {
  const res = await emu.call('POST', '/v1/invoices', { key: mk, idempotencyKey: ikey(), body: { amount: '10.00' } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const status = async (id: string) => (await emu.call('GET', `/v1/invoices/${id}`, { key: mk })).body.status;
const keyCount = async () => (await emu.query('SELECT COUNT(*) AS n FROM api_keys'))[0]?.n as number;

describe('a body on an endpoint that needs none (CONTRACT §2)', () => {
  it('expire: environment, another content type, invalid JSON, a non-object and an oversized body are refused, and nothing happens', async () => {
    const id = await invoice();
    const path = `/v1/test_helpers/invoices/${id}/expire`;
    expectError(await emu.call('POST', path, { key: mk, body: { environment: 'live' } }), 400, 'environment_not_allowed', 'environment');
    expectError(await emu.call('POST', path, { key: mk, raw: 'expire it', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    expectError(
      await emu.call('POST', path, { key: mk, raw: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'unsupported_media_type',
    );
    expectError(await emu.call('POST', path, { key: mk, raw: '{"a":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    expectError(await emu.call('POST', path, { key: mk, raw: '[]', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    expectError(
      await emu.call('POST', path, { key: mk, raw: `{"a":"${'x'.repeat(1024 * 1024)}"}`, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
    );
    expect(await status(id)).toBe('CREATED');
  });

  it('an empty body, or an empty JSON object, is fine; unknown fields are ignored with a Warning', async () => {
    const a = await invoice();
    const empty = await emu.call('POST', `/v1/test_helpers/invoices/${a}/expire`, { key: mk, raw: '', headers: { 'content-type': 'text/plain' } });
    expect(empty.status, empty.text).toBe(200);
    const b = await invoice();
    expect((await emu.call('POST', `/v1/test_helpers/invoices/${b}/expire`, { key: mk, body: {} })).status).toBe(200);
    const c = await invoice();
    const extra = await emu.call('POST', `/v1/test_helpers/invoices/${c}/expire`, { key: mk, body: { reason: 'test' } });
    expect(extra.status, extra.text).toBe(200);
    expect(extra.headers.get('warning')).toBe('299 svc-emulator "Unknown fields ignored: reason"');
  });

  it('confirm and resend follow the same rules', async () => {
    const id = await invoice();
    const paid = await emu.call('POST', `/v1/test_helpers/invoices/${id}/payments`, { key: mk, body: { confirmed: false } });
    expect(paid.status, paid.text).toBe(201);
    const confirm = `/v1/test_helpers/invoices/${id}/payments/${paid.body.payment.id}/confirm`;
    expectError(await emu.call('POST', confirm, { key: mk, body: { environment: 'test' } }), 400, 'environment_not_allowed');
    expectError(await emu.call('POST', confirm, { key: mk, raw: 'confirm', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    expectError(await emu.call('POST', confirm, { key: mk, raw: 'nope', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    expect(await status(id)).toBe('CONFIRMING');

    const resend = '/v1/partner/webhook/deliveries/00000000-0000-4000-8000-000000000000/resend';
    expectError(await emu.call('POST', resend, { key: pt, body: { environment: 'live' } }), 400, 'environment_not_allowed');
    expectError(await emu.call('POST', resend, { key: pt, raw: 'x', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    // Without a body, the route itself answers.
    expectError(await emu.call('POST', resend, { key: pt }), 404, 'delivery_not_found');
  });

  it('POST /__emulator/merchants/{id}/keys issues no key for a refused body', async () => {
    const path = `/__emulator/merchants/${emu.keys.test.merchantId}/keys`;
    const before = await keyCount();
    expectError(await emu.call('POST', path, { body: { environment: 'live' } }), 400, 'environment_not_allowed');
    expectError(await emu.call('POST', path, { raw: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
    expectError(await emu.call('POST', path, { raw: '{', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    expect(await keyCount()).toBe(before);
    const issued = await emu.call('POST', path);
    expect(issued.status, issued.text).toBe(201);
    expect(await keyCount()).toBe(before + 1);
  });

  it('POST /__emulator/reset refuses a form body (a cross-site form post without Origin, as old browsers send it)', async () => {
    const id = await invoice();
    expectError(
      await emu.call('POST', '/__emulator/reset', { raw: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'unsupported_media_type',
    );
    expect(await status(id)).toBe('CREATED');
  });
});

/** `{"amount":"1.00","items":[{},…]}` holding `values` JSON values in all. */
function wideBody(values: number): string {
  // The root object, the amount, the array: three values besides the array's elements.
  return JSON.stringify({ amount: '1.00', items: Array.from({ length: values - 3 }, () => ({})) });
}

describe('a body holding too many JSON values (CONTRACT §8)', () => {
  it('is 413 payload_too_large above 10,000 values, saying why; 10,000 values are accepted', async () => {
    const refused = await emu.call('POST', '/v1/invoices', {
      key: mk,
      idempotencyKey: ikey(),
      raw: wideBody(10_001),
      headers: { 'content-type': 'application/json' },
    });
    expectError(refused, 413, 'payload_too_large');
    expect(refused.body.error.message).toContain('more than 10,000 JSON values');
    const accepted = await emu.call('POST', '/v1/invoices', {
      key: mk,
      idempotencyKey: ikey(),
      raw: wideBody(10_000),
      headers: { 'content-type': 'application/json' },
    });
    expect(accepted.status, accepted.text).toBe(201);
  });

  it('is refused on an endpoint without a body too, and for 1 MiB of empty objects', async () => {
    const id = await invoice();
    const wide = `[${'{},'.repeat(340_000)}{}]`;
    expectError(
      await emu.call('POST', `/v1/test_helpers/invoices/${id}/expire`, { key: mk, raw: `{"a":${wide}}`, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
    );
    expectError(
      await emu.call('POST', '/v1/invoices', { key: mk, idempotencyKey: ikey(), raw: wide, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
    );
    expect(await status(id)).toBe('CREATED');
  });

  it('a long string full of JSON punctuation is one value', async () => {
    const note = `${'{[,:"\\'.repeat(20_000)}`;
    const res = await emu.call('POST', '/v1/invoices', {
      key: mk,
      idempotencyKey: ikey(),
      raw: JSON.stringify({ amount: '1.00', note }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status, res.text).toBe(201);
  });
});

describe('assets', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'nope.js'])('/assets/%s is 404', async (name) => {
    expectError(await emu.call('GET', `/assets/${name}`), 404, 'not_found');
  });

  it('the real ones are served', async () => {
    expect((await emu.call('GET', '/assets/pages.css')).status).toBe(200);
  });
});

describe('HEAD', () => {
  /** One request on `agent`; resolves with the status, or the client's error message. */
  function send(agent: http.Agent, method: string, headers: Record<string, string> = {}): Promise<{ status: number | string; body: string; socket: unknown }> {
    return new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: emu.port, method, path: '/__emulator/health', headers, agent }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket: req.socket }));
      });
      req.on('error', (error) => resolve({ status: error.message, body: '', socket: null }));
      req.end();
    });
  }

  it('with headers over 16 KiB: a 431 without a body, and Node’s keep-alive client goes on working', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await send(agent, 'HEAD', { 'x-big': 'a'.repeat(17_000) });
      expect(refused.status).toBe(431);
      expect(refused.body).toBe('');
      const next = await send(agent, 'GET');
      expect(next.status).toBe(200);
      expect(JSON.parse(next.body).status).toBe('ok');
    } finally {
      agent.destroy();
    }
  });

  it('a GET with headers over 16 KiB still gets the contract-shaped body', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await send(agent, 'GET', { 'x-big': 'a'.repeat(17_000) });
      expect(refused.status).toBe(431);
      expect(JSON.parse(refused.body).error.code).toBe('headers_too_large');
    } finally {
      agent.destroy();
    }
  });

  it('HEAD on a route answers without a body, on the same kept-alive connection as the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const head = await send(agent, 'HEAD');
      expect(head.status).toBe(405);
      expect(head.body).toBe('');
      const next = await send(agent, 'GET');
      expect(next.status).toBe(200);
      expect(next.socket).toBe(head.socket);
    } finally {
      agent.destroy();
    }
  });
});
