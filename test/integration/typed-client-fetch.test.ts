/**
 * The typed client over `fetch` (issue 26): what the dashboard runs in the browser, where there is no
 * node:http. Here with Node's own fetch, passed as the `fetch` option, against a real emulator: the
 * same answers as over node:http (data, replay, the contract's refusals, an unreachable service),
 * the `headers` option on every call, and `operationPath` for the streams the client does not call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceUnreachableError } from '../../src/client/errors.js';
import { createClient, operationPath } from '../../src/client/typed.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.stop());

describe('createClient({ fetch })', () => {
  it('creates, replays, reads and is refused as over node:http, and sends its headers on every call', async () => {
    const sent: string[] = [];
    const fetchFn: typeof fetch = (url, init) => {
      sent.push(`${init?.method} ${new URL(String(url)).pathname}`);
      return fetch(url, init);
    };
    const client = createClient({ baseUrl: emu.url, merchantKey: emu.keys.test.merchantKey, fetch: fetchFn, headers: { 'svc-client': 'dashboard' } });
    const created = await client.createInvoice({ body: { amount: '4.00' }, idempotencyKey: 'fetch-1' });
    if (!created.ok) throw new Error(created.error.message);
    expect(created).toMatchObject({ status: 201, replayed: false, data: { amount: '4.00', status: 'CREATED' } });
    expect(created.requestId).toMatch(/^req_/);
    expect(await client.createInvoice({ body: { amount: '4.00' }, idempotencyKey: 'fetch-1' })).toMatchObject({ ok: true, status: 200, replayed: true });

    const bad = await client.createInvoice({ body: { amount: '-1' }, idempotencyKey: 'fetch-2' });
    expect(bad).toMatchObject({ ok: false, status: 400, error: { code: 'validation_failed', param: 'amount' } });

    const events = await client.listInvoiceEvents({ params: { id: created.data.id } });
    expect(events.ok && events.data.data.map((e) => e.type)).toEqual(['invoice.created']);
    expect(sent).toEqual(['POST /v1/invoices', 'POST /v1/invoices', 'POST /v1/invoices', `GET /__emulator/invoices/${created.data.id}/events`]);

    // The journal (API requests only) saw the header on each: the dashboard's calls are marked by it.
    const journal = (await emu.call('GET', '/__emulator/requests?limit=10')).body.data as { path: string; fromDashboard: boolean }[];
    const marked = journal.filter((r) => r.path === '/v1/invoices');
    expect(marked).toHaveLength(3);
    expect(marked.every((r) => r.fromDashboard)).toBe(true);
  });

  it('rejects with ServiceUnreachableError when nothing answers', async () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:1', fetch });
    await expect(client.getHealth()).rejects.toBeInstanceOf(ServiceUnreachableError);
  });
});

describe('operationPath', () => {
  it("fills an operation's parameters, encoded, and names the streams' paths", () => {
    expect(operationPath('streamChanges')).toBe('/__emulator/changes');
    expect(operationPath('restoreSnapshot', { name: 'a b/c' })).toBe('/__emulator/snapshots/a%20b%2Fc/restore');
  });
});
