/**
 * `getRequest` (GET /__emulator/requests/{requestId}): one request-journal entry by the `Request-Id`
 * its answer carried (CONTRACT §9, extension). Real emulator, real HTTP; through the typed client too.
 */
import http from 'node:http';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ikey, request } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { expectExactError, ok } from '../helpers/api-response.js';

const { emulator } = perTest();

describe('GET /__emulator/requests/{requestId}', () => {
  it('answers the entry the list shows for the Request-Id a response carried', async () => {
    const emu = await emulator();
    const key = emu.keys.test.merchantKey;
    const created = await emu.call('POST', '/v1/invoices', { key, idempotencyKey: ikey(), body: { amount: '5.00' } });
    expect(created.status).toBe(201);
    const requestId = created.headers.get('request-id');
    expect(requestId).toMatch(/^req_[0-9a-f]+$/);
    await emu.call('GET', '/v1/invoices', { key }); // a newer entry: the lookup is by id, not position

    const entry = ok(await emu.call('GET', `/__emulator/requests/${requestId}`));
    expect(entry).toMatchObject({ id: requestId, method: 'POST', path: '/v1/invoices', status: 201, requestBody: '{"amount":"5.00"}' });
    expect(JSON.parse(entry.responseBody).id).toBe(created.body.id);
    const listed = ok(await emu.call('GET', '/__emulator/requests')).data.find((e: { id: string }) => e.id === requestId);
    expect(entry).toEqual(listed);

    // The typed client has the method from the declaration alone.
    const typed = await emu.client.test.getRequest({ params: { requestId: requestId! } });
    expect(typed.ok && typed.data).toEqual(entry);
  });

  it('answers 404 request_not_found for an id the journal does not hold: unknown, rotated out, cleared', async () => {
    const emu = await emulator({ config: { journalSize: 2 } });
    const key = emu.keys.test.merchantKey;
    expectExactError(await emu.call('GET', '/__emulator/requests/req_000000000000000000000000'), 404, 'request_not_found');
    // A control-plane request is answered with a Request-Id too, but is not journaled.
    const control = await emu.call('GET', '/__emulator/clock');
    expectExactError(await emu.call('GET', `/__emulator/requests/${control.headers.get('request-id')}`), 404, 'request_not_found');

    const first = (await emu.call('GET', '/v1/invoices', { key })).headers.get('request-id');
    ok(await emu.call('GET', `/__emulator/requests/${first}`));
    await emu.call('GET', '/v1/invoices', { key });
    await emu.call('GET', '/v1/invoices', { key }); // the ring holds 2: the first is rotated out
    expectExactError(await emu.call('GET', `/__emulator/requests/${first}`), 404, 'request_not_found');

    const last = (await emu.call('GET', '/v1/invoices', { key })).headers.get('request-id');
    ok(await emu.call('DELETE', '/__emulator/requests'));
    const cleared = await emu.client.test.getRequest({ params: { requestId: last! } });
    expect(cleared.ok).toBe(false);
    if (!cleared.ok) expect([cleared.status, cleared.error.code]).toEqual([404, 'request_not_found']);
  });

  it('leaves GET /__emulator/requests/stream to the stream, which the template would match too', async () => {
    const emu = await emulator();
    const contentType = await new Promise<string | undefined>((resolve, reject) => {
      const req = http.get(`${emu.url}/__emulator/requests/stream`, (res) => {
        resolve(res.headers['content-type']);
        req.destroy();
      });
      req.on('error', reject);
    });
    expect(contentType).toMatch(/^text\/event-stream/);
  });

  it('answers 403 control_plane_forbidden to a non-loopback client, like the rest of the control plane', async () => {
    const address = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i?.family === 'IPv4' && !i.internal)?.address;
    if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
    const emu = await emulator({ host: '0.0.0.0', allowedHosts: [address] });
    const id = (await emu.call('GET', '/v1/invoices', { key: emu.keys.test.merchantKey })).headers.get('request-id');
    const external = await request(`http://${address}:${emu.port}`, 'GET', `/__emulator/requests/${id}`);
    expectExactError(external, 403, 'control_plane_forbidden');
    expect(external.text).not.toContain('/v1/invoices');
    ok(await emu.call('GET', `/__emulator/requests/${id}`));
  });
});
