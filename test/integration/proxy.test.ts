/**
 * `svc proxy` (CONTRACT §13) in-process, in front of a real emulator: the API forwarded unchanged both
 * ways, every exchange checked against the OpenAPI document (Svc-Contract-Violations, the proxy's
 * journal with `violations`), 502 upstream_unavailable, the safety rules of a loopback server, and
 * `--record` (masked, mode 0600).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ContractProxy, type ProxyExchange } from '../../src/fidelity/proxy/server.js';
import { ikey, request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { send } from '../helpers/raw-http.js';
import { tempDir } from '../helpers/temp-dir.js';

let emu: TestEmulator;
let proxy: ContractProxy;
let dir: string;
const exchanges: ProxyExchange[] = [];

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-proxy-');
  proxy = await startProxy({ upstream: emu.url, record: path.join(dir, 'traffic.ndjson'), onExchange: (e) => exchanges.push(e) });
});
afterAll(async () => {
  await proxy.stop();
  await emu.stop();
});

const partner = () => emu.keys.test.partnerKey;
const merchant = () => emu.keys.test.merchantKey;
const records = () =>
  fs
    .readFileSync(path.join(dir, 'traffic.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('forwarding', () => {
  it('sends method, path, query, body bytes, key, Idempotency-Key and Content-Type as they came; answers status, body bytes and headers as svc did', async () => {
    const key = ikey();
    const raw = '{ "amount" :"12.50",\n "referenceId": "proxy-1" }';
    const res = await fetch(`${proxy.url}/v1/invoices?svc=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant()}`, 'idempotency-key': key, 'content-type': 'application/json; charset=utf-8' },
      body: raw,
    });
    const text = await res.text();
    expect(res.status).toBe(201);
    expect(res.headers.get('svc-contract-violations')).toBe('0');
    const [entry] = emu.requests({ path: '/v1/invoices', method: 'POST', limit: 1 });
    // What svc received and answered, byte for byte (its journal masks nothing in these).
    expect(entry).toMatchObject({
      requestBody: raw,
      query: 'svc=1',
      idempotencyKey: key,
      status: 201,
      responseBody: text,
      key: `test_…${merchant().slice(-4)}`,
    });
    expect(res.headers.get('request-id')).toBe(entry!.id);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // A replay: Idempotent-Replayed passes through.
    const again = await fetch(`${proxy.url}/v1/invoices?svc=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant()}`, 'idempotency-key': key, 'content-type': 'application/json' },
      body: raw,
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(text);
  });

  it('passes Retry-After and an injected fault through, and holds the fault to the document’s InjectedFault (no violation)', async () => {
    const fault = emu.faults.add({
      match: { path: '/v1/partner/merchants' },
      action: { status: 503, code: 'maintenance', retryAfter: 7 },
      when: 'before',
      times: 1,
    });
    const res = await request(proxy.url, 'GET', '/v1/partner/merchants', { key: partner() });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('svc-fault')).toBe(fault.id);
    expect(res.headers.get('svc-contract-violations')).toBe('0');
  });
});

describe('checking against the OpenAPI document', () => {
  it('counts a request that breaks the document in Svc-Contract-Violations, says where, and still forwards it', async () => {
    const before = exchanges.length;
    const res = await request(proxy.url, 'POST', '/v1/invoices', { key: merchant(), idempotencyKey: ikey(), body: { amount: 12 } });
    expect(res.status).toBe(400); // svc's own answer, forwarded
    expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'amount' });
    expect(res.headers.get('svc-contract-violations')).toBe('1');
    const seen = exchanges.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.violations).toEqual([{ where: 'request', path: '/body/amount', message: 'must be string' }]);
  });

  it('the proxy’s journal: the emulator’s filters and pages, keys masked, each entry with its violations', async () => {
    const list = await request(proxy.url, 'GET', '/__emulator/requests?method=post&path=/v1/invoices&status=400&limit=1');
    expect(list.status).toBe(200);
    expect(list.body.hasMore).toBe(false);
    const [entry] = list.body.data;
    expect(entry).toMatchObject({ method: 'POST', path: '/v1/invoices', status: 400, principal: null, key: `test_…${merchant().slice(-4)}` });
    expect(entry.violations).toEqual([{ where: 'request', path: '/body/amount', message: 'must be string' }]);
    const one = await request(proxy.url, 'GET', `/__emulator/requests/${entry.id}`);
    expect(one.body).toEqual(entry);
    // Pages as §3: startingAfter and hasMore.
    const page = await request(proxy.url, 'GET', '/__emulator/requests?limit=1');
    expect(page.body.hasMore).toBe(true);
    const next = await request(proxy.url, 'GET', `/__emulator/requests?limit=1&startingAfter=${page.body.data[0].id}`);
    expect(next.body.data[0].id).not.toBe(page.body.data[0].id);
    // Bad filters are the contract's errors.
    const bad = await request(proxy.url, 'GET', '/__emulator/requests?limit=500');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', param: 'limit' });
    expect((await request(proxy.url, 'GET', '/__emulator/requests/req_0123')).body.error.code).toBe('request_not_found');
  });
});

describe('its own answers', () => {
  it('502 upstream_unavailable in the error shape when the upstream cannot be reached, journaled', async () => {
    const down = await startProxy({ upstream: 'http://127.0.0.1:1' });
    try {
      const res = await request(down.url, 'POST', '/v1/invoices', { key: merchant(), idempotencyKey: ikey(), body: { amount: '1.00' } });
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ error: { code: 'upstream_unavailable', message: expect.stringContaining('http://127.0.0.1:1') } });
      expect(res.headers.get('request-id')).toMatch(/^req_[0-9a-f]+$/);
      expect(res.headers.get('svc-contract-violations')).toBe('0');
      expect(down.journal.page({ limit: 10 })!.data).toMatchObject([{ status: 502, path: '/v1/invoices', requestBody: '{"amount":"1.00"}' }]);
    } finally {
      await down.stop();
    }
  });

  it('answers only for loopback hosts, serves nothing but /v1 and its journal, and refuses a cross-site clear of its journal', async () => {
    // fetch will not send another Host: node:http does.
    const foreign = await send(proxy.port, {
      method: 'GET',
      path: '/v1/partner/merchants',
      headers: { host: 'evil.example', authorization: `Bearer ${partner()}` },
    });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.text).error.code).toBe('host_not_allowed');
    const page = await request(proxy.url, 'GET', '/checkout/x');
    expect(page.status).toBe(404);
    expect(page.body.error.code).toBe('not_found');
    const crossSite = await request(proxy.url, 'DELETE', '/__emulator/requests', { headers: { origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.code).toBe('cross_site_request');
    expect(proxy.journal.page({ limit: 1 })!.data).toHaveLength(1);
  });

  it('listens on 127.0.0.1, and a port in use is a user error naming it', async () => {
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(startProxy({ upstream: emu.url, port: proxy.port })).rejects.toMatchObject({ code: 'port_in_use' });
  });
});

describe('--record', () => {
  it('one JSON line per exchange, keys and secrets masked as in the journal, the file mode 0600', async () => {
    const secret = 'whsec_recorded_secret_value_42';
    const put = await request(proxy.url, 'PUT', '/v1/partner/webhook', {
      key: partner(),
      body: { url: 'https://example.com/hooks', secret, enabled: false, customHeaders: { Authorization: 'Bearer receiver-token-123' } },
    });
    expect(put.status).toBe(200);
    expect(fs.statSync(path.join(dir, 'traffic.ndjson')).mode & 0o777).toBe(0o600);
    const text = fs.readFileSync(path.join(dir, 'traffic.ndjson'), 'utf8');
    for (const leak of [partner(), merchant(), secret, 'receiver-token-123']) expect(text).not.toContain(leak);
    const last = records().at(-1);
    expect(Object.keys(last)).toEqual(['at', 'request', 'response', 'violations']);
    expect(last.request).toMatchObject({ method: 'PUT', path: '/v1/partner/webhook', query: '' });
    expect(last.request.headers.authorization).toBe(`Bearer pt_test_…${partner().slice(-4)}`);
    expect(JSON.parse(last.request.body)).toMatchObject({ secret: '…', customHeaders: { Authorization: '…' } });
    expect(last.response).toMatchObject({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(last.violations).toEqual([]);
  });

  it('tightens an existing recording file to 0600 and appends to it', async () => {
    const file = path.join(dir, 'existing.ndjson');
    fs.writeFileSync(file, '', { mode: 0o644 });
    const p = await startProxy({ upstream: emu.url, record: file });
    try {
      await request(p.url, 'GET', '/v1/partner/merchants', { key: partner() });
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
    } finally {
      await p.stop();
    }
  });
});
