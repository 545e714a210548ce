/**
 * The order of the request pipeline's checks (src/server/pipeline/index.ts): one request that breaks
 * every rule, mended one rule at a time, is refused by each check in turn, CONTRACT §8 before §2.
 * Moving a stage in the list changes which refusal comes first, and fails this test.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, ok } from '../helpers/api-response.js';
import { type ApiResponse, ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

/** One request over node:http, so that `Host` is sent as given. */
function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: emu.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the checks come in the contract’s order', () => {
  it('a create breaking every rule is refused by host, route, key, fault, Idempotency-Key, media type, body, replay, validation in turn', async () => {
    const fault = ok(
      await emu.call('POST', '/__emulator/faults', {
        body: { match: { method: 'POST', path: '/v1/invoices' }, action: { status: 503 }, when: 'before', times: 1 },
      }),
      201,
    );
    const merchantKey = emu.keys.test.merchantKey;
    const own = `127.0.0.1:${emu.port}`;
    const key = ikey();
    const bad = JSON.stringify({ environment: 'test', amount: 5 });
    const text = { 'content-type': 'text/plain', 'content-length': String(bad.length) };

    expectError(await send('PATCH', '/v1/invoices', { host: 'rebound.example', ...text }, bad), 403, 'host_not_allowed');
    const wrongMethod = await send('PATCH', '/v1/invoices', { host: own, ...text }, bad);
    expectError(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.get('allow')).toBe('POST, GET');
    expectError(await send('POST', '/v1/invoices', { host: own, ...text }, bad), 401, 'unauthorized');
    expectError(
      await send('POST', '/v1/invoices', { host: own, authorization: `Bearer ${emu.keys.test.partnerKey}`, ...text }, bad),
      403,
      'forbidden_key_type',
    );
    // The fault waited for a key (it may match an environment), and acts before anything else is looked at.
    const auth = { host: own, authorization: `Bearer ${merchantKey}` };
    const faulted = await send('POST', '/v1/invoices', { ...auth, ...text }, bad);
    expectError(faulted, 503, 'service_unavailable');
    expect(faulted.headers.get('svc-fault')).toBe(fault.id);
    expectError(await send('POST', '/v1/invoices', { ...auth, ...text }, bad), 400, 'idempotency_key_required');
    expectError(await send('POST', '/v1/invoices', { ...auth, 'idempotency-key': key, ...text }, bad), 415, 'unsupported_media_type');
    const json = { ...auth, 'idempotency-key': key, 'content-type': 'application/json' };
    expectError(await send('POST', '/v1/invoices', { ...json, 'content-length': String(bad.length) }, bad), 400, 'environment_not_allowed');
    const invalid = JSON.stringify({ amount: 5 });
    expectError(await send('POST', '/v1/invoices', { ...json, 'content-length': String(invalid.length) }, invalid), 400, 'validation_failed', 'amount');

    const good = JSON.stringify({ amount: '10.00' });
    const created = await send('POST', '/v1/invoices', { ...json, 'content-length': String(good.length) }, good);
    expect(created.status, created.text).toBe(201);
    // A used key is looked up before the body is validated: another body, even an invalid one, is 422.
    expectError(await send('POST', '/v1/invoices', { ...json, 'content-length': String(invalid.length) }, invalid), 422, 'idempotency_key_reused');
    const replay = await send('POST', '/v1/invoices', { ...json, 'content-length': String(good.length) }, good);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(created.text);
  });

  it('a control-plane write: host, then cross-site, then the body', async () => {
    const body = 'a=1';
    const form = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) };
    const own = `127.0.0.1:${emu.port}`;
    expectError(await send('POST', '/__emulator/reset', { host: 'rebound.example', origin: 'http://evil.example', ...form }, body), 403, 'host_not_allowed');
    expectError(await send('POST', '/__emulator/reset', { host: own, origin: 'http://evil.example', ...form }, body), 403, 'cross_site_request');
    expectError(await send('POST', '/__emulator/reset', { host: own, ...form }, body), 415, 'unsupported_media_type');
  });
});
