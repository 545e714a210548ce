/**
 * The typed client (issue 12): `emulator.client` and `createClient` from `svc-emulator/client`,
 * against a real emulator. Types are checked by tsc (expectTypeOf); behaviour by real HTTP.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, type ClientResult, type SentRequest } from '../../src/client/typed.js';
import type { Invoice, PartnerInvoice } from '../../src/contract/index.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.stop());

describe('emulator.client', () => {
  it('creates with the merchant key and reads with the partner key, typed from the contract', async () => {
    const created = await emu.client.test.createInvoice({ body: { amount: '12.50', referenceId: 'order-1' }, idempotencyKey: 'typed-1' });
    expectTypeOf(created).toEqualTypeOf<ClientResult<'createInvoice'>>();
    if (!created.ok) throw new Error(created.error.message);
    expectTypeOf(created.data).toEqualTypeOf<Invoice>();
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ amount: '12.50', referenceId: 'order-1', status: 'CREATED' });

    const replay = await emu.client.test.createInvoice({ body: { amount: '12.50', referenceId: 'order-1' }, idempotencyKey: 'typed-1' });
    expect(replay).toMatchObject({ ok: true, status: 200, replayed: true });

    const read = await emu.client.test.getPartnerInvoice({ params: { id: created.data.id } });
    if (!read.ok) throw new Error(read.error.message);
    expectTypeOf(read.data).toEqualTypeOf<PartnerInvoice>();
    expect(read.data.id).toBe(created.data.id);
  });

  it('answers errors as a union on code: a 404 invoice_not_found, a 400 validation_failed with param', async () => {
    const missing = await emu.client.test.getInvoice({ params: { id: '00000000-0000-4000-8000-000000000000' } });
    expect(missing.ok).toBe(false);
    if (missing.ok) return;
    expect(missing.status).toBe(404);
    expect(missing.error.code).toBe('invoice_not_found');
    if (missing.error.code === 'invoice_not_found') expectTypeOf(missing.error.code).toEqualTypeOf<'invoice_not_found'>();
    // A code this operation cannot answer does not compile.
    // @ts-expect-error: getInvoice never answers webhook_secret_required
    expect(missing.error.code === 'webhook_secret_required').toBe(false);

    const bad = await emu.client.test.createInvoice({ body: { amount: 'ten' }, idempotencyKey: 'typed-bad' });
    expect(bad).toMatchObject({ ok: false, status: 400, error: { code: 'validation_failed', param: 'amount' } });
  });

  it('the live client carries the live keys; test helpers refuse it with test_mode_only', async () => {
    const created = await emu.client.live.createInvoice({ body: { amount: '1.00' }, idempotencyKey: 'typed-live' });
    if (!created.ok) throw new Error(created.error.message);
    expect(created.data.environment).toBe('live');
    const paid = await emu.client.live.createTestPayment({ params: { id: created.data.id }, body: {} });
    expect(paid).toMatchObject({ ok: false, status: 403, error: { code: 'test_mode_only' } });
  });

  it('control-plane operations take no key; a key of its own may be given per call', async () => {
    const clock = await emu.client.test.getClock();
    expect(clock).toMatchObject({ ok: true, status: 200, data: { now: expect.any(String) } });
    const anon = await emu.client.test.listPartnerInvoices({ key: 'pt_test_00000000000000000000000000000000' });
    expect(anon).toMatchObject({ ok: false, status: 401, error: { code: 'unauthorized' } });
  });
});

describe('createClient for a base URL', () => {
  it('works against any base URL with given keys; an unreachable one rejects', async () => {
    const client = createClient({ baseUrl: emu.url, merchantKey: emu.keys.test.merchantKey });
    const list = await client.listInvoices({ query: { limit: 1 } });
    if (!list.ok) throw new Error(list.error.message);
    expect(list.data.data).toHaveLength(1);
    await expect(createClient({ baseUrl: 'http://127.0.0.1:9' }).getHealth()).rejects.toThrow(/cannot reach/);
  });

  // Raw HTTP on purpose: the answers are ones the service never sends (a proxy's error bodies in
  // front of it), which is what this is about. They must not pass for the contract's error shape.
  it('a refusal whose body is not the contract error shape reads as http_<status>, its text as the message', async () => {
    const bodies = ['{"error":"bad gateway"}', '{"error":{"code":"upstream_down"}}', '<html>502</html>'];
    let next = 0;
    const server = http.createServer((_req, res) => res.writeHead(502, { 'content-type': 'application/json' }).end(bodies[next++]));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const client = createClient({ baseUrl: `http://127.0.0.1:${port}` });
      for (const body of bodies) {
        const result = await client.getHealth();
        expect(result).toMatchObject({ ok: false, status: 502, error: { code: 'http_502', message: body } });
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

// Issue 26: the CLI's one client. What it needed from createClient, held here against a real emulator.
describe('createClient: what the CLI needs (issue 26)', () => {
  it('onSend sees each request as it goes out: operation id, method, path with query, key kind and key', async () => {
    const sent: SentRequest[] = [];
    const client = createClient({ baseUrl: emu.url, partnerKey: emu.keys.test.partnerKey, onSend: (r) => sent.push(r) });
    await client.listPartnerInvoices({ query: { limit: 2 } });
    await client.getClock();
    expect(sent).toEqual([
      { operationId: 'listPartnerInvoices', method: 'GET', path: '/v1/partner/invoices?limit=2', kind: 'partner', key: emu.keys.test.partnerKey },
      { operationId: 'getClock', method: 'GET', path: '/__emulator/clock', kind: 'none', key: undefined },
    ]);
  });

  it('missingKey: a call needing a key the client lacks rejects with its error, and sends nothing', async () => {
    const sent: SentRequest[] = [];
    const missing = new Error('no merchant key here');
    const client = createClient({ baseUrl: emu.url, partnerKey: emu.keys.test.partnerKey, missingKey: () => missing, onSend: (r) => sent.push(r) });
    await expect(client.createInvoice({ body: { amount: '1.00' }, idempotencyKey: 'never-sent' })).rejects.toBe(missing);
    expect(() => client.key('merchant')).toThrow(missing);
    expect(client.key('partner')).toBe(emu.keys.test.partnerKey);
    expect(sent).toEqual([]);
    // Without the hook, the request goes out keyless and the API answers (users' tests see the 401).
    const plain = createClient({ baseUrl: emu.url });
    expect(await plain.listInvoices()).toMatchObject({ ok: false, status: 401, error: { code: 'unauthorized' } });
  });

  it('keyKind picks the key an either-kind operation (a test helper) sends; the default is the merchant key', async () => {
    const sent: SentRequest[] = [];
    const both = { baseUrl: emu.url, partnerKey: emu.keys.test.partnerKey, merchantKey: emu.keys.test.merchantKey, onSend: (r: SentRequest) => sent.push(r) };
    const client = createClient(both);
    const created = await client.createInvoice({ body: { amount: '3.00' }, idempotencyKey: 'typed-either' });
    if (!created.ok) throw new Error(created.error.message);
    const paid = await client.createTestPayment({ params: { id: created.data.id }, body: { amount: '1.00' }, keyKind: 'partner' });
    expect(paid).toMatchObject({ ok: true, status: 201 });
    await client.expireTestInvoice({ params: { id: created.data.id } });
    expect(sent.slice(1).map((r) => [r.operationId, r.kind])).toEqual([
      ['createTestPayment', 'partner'],
      ['expireTestInvoice', 'merchant'],
    ]);
  });

  it('a file download (exportSnapshot) answers its bytes; url() fills in an operation path and query; call() takes an id chosen at run time', async () => {
    const client = createClient({ baseUrl: emu.url });
    expect(await client.saveSnapshot({ body: { name: 'typed-file' } })).toMatchObject({ ok: true, status: 201 });
    const file = await client.exportSnapshot({ params: { name: 'typed-file' } });
    if (!file.ok) throw new Error(file.error.message);
    expectTypeOf(file.data).toEqualTypeOf<Uint8Array>();
    expect(Buffer.from(file.data.subarray(0, 16)).toString('latin1')).toBe('SQLite format 3\0');
    expect(client.url('streamRequests', { query: { status: 400, path: undefined } })).toBe(`${emu.url}/__emulator/requests/stream?status=400`);
    const dynamic = await client.call('getMerchant', { params: { id: emu.keys.test.merchantId }, keyKind: 'none' });
    expect(dynamic).toMatchObject({ ok: false, status: 401 });
  });
});
