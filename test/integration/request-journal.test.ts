/**
 * CONTRACT §9's request journal: what the app sent and what it got back, over the control plane,
 * its event stream and in-process. Real emulator, real HTTP.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import type { ClientInput } from '../../src/client/typed.js';
import { ok } from '../helpers/api-response.js';
import { dataOf } from '../helpers/client-result.js';

const emulators: TestEmulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((e) => e.stop()));
});
async function emulator(options: Parameters<typeof startTestEmulator>[0] = {}) {
  const emu = await startTestEmulator(options);
  emulators.push(emu);
  return emu;
}
/** The journal's entries, newest first, through the typed client. */
const journal = async (emu: TestEmulator, query?: ClientInput<'listRequests'>['query']) => dataOf(await emu.client.test.listRequests({ query })).data;
const masked = (key: string) => `${/^(pt_)?(test|live)_/.exec(key)![0]}…${key.slice(-4)}`;

describe('GET /__emulator/requests', () => {
  it('lists the API requests newest first with bodies, principal, masked key, idempotency and replay', async () => {
    const emu = await emulator();
    const key = emu.keys.test.merchantKey;
    const idem = ikey();
    const api = emu.client.test;
    const created = dataOf(await api.createInvoice({ idempotencyKey: idem, body: { amount: '7.00', referenceId: 'r-1' } }), 201);
    dataOf(await api.createInvoice({ idempotencyKey: idem, body: { amount: '7.00', referenceId: 'r-1' } }));
    await api.getInvoice({ params: { id: '00000000-0000-4000-8000-000000000000' } });
    await api.getClock(); // the control plane is not journaled

    const { data, hasMore } = dataOf(await api.listRequests());
    expect(hasMore).toBe(false);
    expect(data.map((e) => [e.method, e.path, e.status, e.replayed])).toEqual([
      ['GET', '/v1/invoices/00000000-0000-4000-8000-000000000000', 404, false],
      ['POST', '/v1/invoices', 200, true],
      ['POST', '/v1/invoices', 201, false],
    ]);
    const first = data[2]!;
    expect(first).toMatchObject({
      principal: { kind: 'merchant', environment: 'test', partnerId: emu.keys.partnerId, merchantId: emu.keys.test.merchantId },
      key: masked(key),
      idempotencyKey: idem,
      requestBody: '{"amount":"7.00","referenceId":"r-1"}',
      truncated: false,
      fault: null,
      query: '',
    });
    expect(JSON.parse(first.responseBody!).id).toBe(created.id);
    expect(first.id).toMatch(/^req_/);
    expect(first.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(data)).not.toContain(key);
    expect(JSON.parse(data[0]!.responseBody!).error.code).toBe('invoice_not_found');
  });

  it('filters by method, path prefix, status and invoiceId, and pages as §3', async () => {
    const emu = await emulator();
    const api = emu.client.test;
    const a = dataOf(await api.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
    dataOf(await api.createInvoice({ idempotencyKey: ikey(), body: { amount: '2.00' } }), 201);
    await api.getInvoice({ params: { id: a.id } });
    await api.listInvoices({ query: { limit: 2 } });
    await api.createInvoice({ idempotencyKey: ikey(), body: { amount: 'x' } });

    const list = async (query: ClientInput<'listRequests'>['query']) => (await journal(emu, query)).map((e) => `${e.method} ${e.path}?${e.query} ${e.status}`);
    expect(await list({ method: 'get' })).toEqual([`GET /v1/invoices?limit=2 200`, `GET /v1/invoices/${a.id}? 200`]);
    expect(await list({ status: 400 })).toEqual(['POST /v1/invoices? 400']);
    // Its path or its answer names the invoice: the read, the list that shows it, the create.
    expect(await list({ invoiceId: a.id })).toEqual([`GET /v1/invoices?limit=2 200`, `GET /v1/invoices/${a.id}? 200`, 'POST /v1/invoices? 201']);
    expect(await list({ path: '/v1/invoices/' })).toEqual([`GET /v1/invoices/${a.id}? 200`]);

    const page1 = dataOf(await api.listRequests({ query: { limit: 2 } }));
    expect(page1.data).toHaveLength(2);
    expect(page1.hasMore).toBe(true);
    const page2 = dataOf(await api.listRequests({ query: { limit: 2, startingAfter: page1.data[1]!.id } }));
    expect(page2.data.map((e) => e.id)).not.toContain(page1.data[0]!.id);
    expect(page2.data).toHaveLength(2);
    const bad = await api.listRequests({ query: { startingAfter: 'req_nope' } });
    expect(bad.status).toBe(400);
    expect(!bad.ok && bad.error.param).toBe('startingAfter');
    const status = await api.listRequests({ query: { status: 99 } });
    expect(!status.ok && status.error.param).toBe('status');
  });

  it('masks keys and webhook secrets inside bodies too', async () => {
    const emu = await emulator();
    const secret = 'whsec_journal_secret_value_1234';
    dataOf(await emu.client.test.putWebhook({ body: { url: 'http://127.0.0.1:9/hooks', secret } }));
    const entry = (await journal(emu))[0]!;
    expect(entry.requestBody).not.toContain(secret);
    expect(entry.requestBody).toContain('"secret":"…"');
  });

  // Issue 22: four ways a secret got past the mask.
  // Raw HTTP: a key in the query string is what the typed client never sends.
  it('masks a key sent in the query string', async () => {
    const emu = await emulator();
    const key = emu.keys.test.merchantKey;
    await emu.call('GET', `/v1/invoices?limit=2&api_key=${key}&token=tok_query_secret_value`, { key });
    const entry = (await journal(emu))[0]!;
    expect(entry.query).not.toContain(key.slice(8, 20));
    expect(entry.query).toBe(`limit=2&api_key=${masked(key)}&token=…`);
  });

  // Issue 40: a key pasted as an Idempotency-Key (a shell variable mixed up) was shown in clear.
  it('masks a key sent as an Idempotency-Key, alone or inside the value', async () => {
    const emu = await emulator();
    const key = emu.keys.test.merchantKey;
    const partnerKey = emu.keys.live.partnerKey;
    await emu.call('POST', '/v1/invoices', { key, idempotencyKey: partnerKey, body: { amount: '1.00' } });
    await emu.call('POST', '/v1/invoices', { key, idempotencyKey: `retry-${partnerKey}-2`, body: { amount: '2.00' } });
    const entries = await journal(emu);
    expect(entries.map((e) => e.idempotencyKey)).toEqual([`retry-${masked(partnerKey)}-2`, masked(partnerKey)]);
    const raw = await emu.call('GET', '/__emulator/requests');
    expect(raw.text).not.toContain(partnerKey.slice(8, 20));
    expect(JSON.stringify(emu.requests())).not.toContain(partnerKey.slice(8, 20));
  });

  // Raw HTTP: the request body's exact bytes are the point of these two.
  it('masks a secret cut in the middle by the 16 KiB body limit', async () => {
    const emu = await emulator();
    const secret = 'whsec_CUTSECRET_abcdefghijklmnopqrstuvwxyz0123';
    const head = `{"url":"http://127.0.0.1:9/hooks","pad":"`;
    const tail = `","secret":"`;
    // The cut falls 24 characters into the secret.
    const pad = 'p'.repeat(16 * 1024 - head.length - tail.length - 24);
    const raw = `${head}${pad}${tail}${secret}"}`;
    await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, raw, headers: { 'content-type': 'application/json' } });
    const entry = (await journal(emu))[0]!;
    expect(entry.truncated).toBe(true);
    expect(entry.requestBody).not.toContain('CUTSECRET');
    expect(entry.requestBody?.endsWith('"secret":"…')).toBe(true);
  });

  it('masks a secret whose member name is written with a JSON escape', async () => {
    const emu = await emulator();
    const secret = 'whsec_escaped_name_secret_value_77';
    const raw = `{"url":"http://127.0.0.1:9/hooks","secr\\u0065t":"${secret}"}`;
    ok(await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, raw, headers: { 'content-type': 'application/json' } }));
    const entry = (await journal(emu))[0]!;
    expect(entry.requestBody).not.toContain('escaped_name_secret');
    expect(entry.requestBody).toContain('"secr\\u0065t":"…"');
  });

  it('masks custom header values in requests and responses', async () => {
    const emu = await emulator();
    const token = 'Bearer rcv_custom_header_secret_5555';
    const body = {
      url: 'http://127.0.0.1:9/hooks',
      secret: 'whsec_custom_headers_secret_1',
      customHeaders: { 'X-Receiver-Auth': token, 'X-Team': 'payments' },
    };
    dataOf(await emu.client.test.putWebhook({ body }));
    dataOf(await emu.client.test.getWebhook());
    const entries = await journal(emu);
    expect(JSON.stringify(entries)).not.toContain('custom_header_secret');
    expect(entries[1]!.requestBody).toContain('"customHeaders":{"X-Receiver-Auth":"…","X-Team":"…"}');
    expect(entries[0]!.responseBody).toContain('"X-Receiver-Auth":"…"');
  });

  it('keeps a bounded ring (journalSize), and DELETE empties it', async () => {
    const emu = await emulator({ config: { journalSize: 3 } });
    for (let i = 0; i < 5; i++) await emu.client.test.listInvoices();
    expect(await journal(emu)).toHaveLength(3);
    expect(dataOf(await emu.client.test.clearRequests())).toEqual({ deleted: 3 });
    expect(await journal(emu)).toEqual([]);
    const off = await emulator({ config: { journalSize: 0 } });
    await off.client.test.listInvoices();
    expect(await journal(off)).toEqual([]);
    await expect(startTestEmulator({ config: { journalSize: -1 } })).rejects.toThrow(/journalSize/);
  });

  it('in-process: emulator.requests(filter) and clearRequests()', async () => {
    const emu = await emulator();
    await emu.client.test.createInvoice({ body: { amount: '3.00' }, idempotencyKey: ikey() });
    await emu.client.test.listInvoices();
    expect(emu.requests({ method: 'POST' }).map((e) => e.status)).toEqual([201]);
    expect(emu.requests({ limit: 1 })[0]?.method).toBe('GET');
    expect(emu.clearRequests()).toBe(2);
    expect(emu.requests()).toEqual([]);
  });
});

describe('GET /__emulator/requests/stream', () => {
  // The stream itself is raw HTTP (the typed client offers no streams); the requests it reports are typed.
  it('sends each request as it is answered, filtered', async () => {
    const emu = await emulator();
    const events: any[] = [];
    const req = http.get(`${emu.url}/__emulator/requests/stream?method=POST`);
    const ready = new Promise<void>((resolve) => {
      req.on('response', (res) => {
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let at = buffer.indexOf('\n\n'); at !== -1; at = buffer.indexOf('\n\n')) {
            const message = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            if (message.startsWith('event: ready')) resolve();
            const data = /^event: request\ndata: (.*)$/m.exec(message);
            if (data) events.push(JSON.parse(data[1]!));
          }
        });
      });
    });
    await ready;
    await emu.client.test.listInvoices();
    await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '4.00' } });
    for (let i = 0; i < 100 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    req.destroy();
    expect(events.map((e) => `${e.method} ${e.status}`)).toEqual(['POST 201']);
  });
});
