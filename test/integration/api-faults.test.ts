/**
 * CONTRACT §9's API faults: an error, a delay or a dropped connection, before the operation or after
 * it committed; `Svc-Fault` on every faulted answer; the retry-with-the-same-Idempotency-Key proof.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import type { ClientInput } from '../../src/client/typed.js';
import { dataOf, expectRefused } from '../helpers/client-result.js';

const emulators: TestEmulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((e) => e.stop()));
});
async function emulator() {
  const emu = await startTestEmulator();
  emulators.push(emu);
  return emu;
}
const addFault = async (emu: TestEmulator, body: ClientInput<'createFault'>['body']) => dataOf(await emu.client.test.createFault({ body }), 201);
// Raw HTTP: a faulted answer is known by its headers (Svc-Fault, Retry-After), which the typed client does not return.
const create = (emu: TestEmulator, idempotencyKey = ikey(), amount = '10.00') =>
  emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey, body: { amount } });
// The typed client, where only the outcome matters.
const createTyped = (emu: TestEmulator, idempotencyKey = ikey(), amount = '10.00') => emu.client.test.createInvoice({ idempotencyKey, body: { amount } });
const count = async (emu: TestEmulator) => dataOf(await emu.client.test.listInvoices({ query: { limit: 100 } })).data.length;
const faults = async (emu: TestEmulator) => dataOf(await emu.client.test.listFaults()).data;

/** A raw request whose connection may be dropped: resolves with the status, or 'dropped'. */
function rawCreate(emu: TestEmulator, idempotencyKey: string): Promise<number | 'dropped'> {
  const body = JSON.stringify({ amount: '10.00' });
  return new Promise((resolve) => {
    const req = http.request(`${emu.url}/v1/invoices`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${emu.keys.test.merchantKey}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve('dropped'));
    req.end(body);
  });
}

describe('faults before the operation', () => {
  it('503 with Retry-After and Svc-Fault, nothing created; `times` uses it up', async () => {
    const emu = await emulator();
    const fault = await addFault(emu, { match: { method: 'POST', path: '/v1/invoices' }, action: { status: 503, retryAfter: 2 }, when: 'before', times: 1 });
    expect(fault).toMatchObject({
      match: { method: 'POST', path: '/v1/invoices' },
      action: { status: 503, code: 'service_unavailable', retryAfter: 2 },
      times: 1,
      fired: 0,
    });
    const refused = await create(emu);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.headers.get('svc-fault')).toBe(fault.id);
    expect(refused.body.error.code).toBe('service_unavailable');
    expect(await count(emu)).toBe(0);
    expect(await faults(emu)).toEqual([]);
    expect((await create(emu)).status).toBe(201);
  });

  it('matches by route template, prefix, method and environment only', async () => {
    const emu = await emulator();
    await addFault(emu, { match: { path: '/v1/invoices/{id}', environment: 'live' }, action: { status: 500 }, when: 'before' });
    const inv = dataOf(await createTyped(emu), 201);
    expect((await emu.client.test.getInvoice({ params: { id: inv.id } })).status).toBe(200);
    const live = await emu.client.live.getInvoice({ params: { id: inv.id } });
    expect(live.status).toBe(500);
    expect(!live.ok && live.error.code).toBe('internal_error');
    expect(dataOf(await emu.client.test.clearFaults())).toEqual({ deleted: 1 });
  });

  it('delays the answer, and drops the connection', async () => {
    const emu = await emulator();
    const slow = await addFault(emu, { match: { path: '/v1/invoices' }, action: { delayMs: 150 }, when: 'before', times: 1 });
    const started = Date.now();
    const res = await create(emu);
    expect(res.status).toBe(201);
    expect(res.headers.get('svc-fault')).toBe(slow.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await addFault(emu, { match: {}, action: { drop: true }, when: 'before', times: 1 });
    expect(await rawCreate(emu, ikey())).toBe('dropped');
    expect(await count(emu)).toBe(1);
    const [entry] = emu.requests({ method: 'POST', limit: 1 });
    expect(entry).toMatchObject({ status: null, fault: expect.any(String) });
  });
});

describe('after_commit: the "did my create happen?" case', () => {
  it('a 503 after the commit; the retry with the same Idempotency-Key returns the invoice, and there is one', async () => {
    const emu = await emulator();
    const fault = await addFault(emu, { match: { method: 'POST', path: '/v1/invoices' }, action: { status: 503 }, when: 'after_commit', times: 1 });
    const key = ikey();
    const first = await create(emu, key);
    expect(first.status).toBe(503);
    expect(first.headers.get('svc-fault')).toBe(fault.id);
    const retry = await create(emu, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await count(emu)).toBe(1);
    expect(retry.body.id).toBe(dataOf(await emu.client.test.listInvoices()).data[0]!.id);
  });

  it('a dropped connection after the commit: the retry is a replay, no second invoice', async () => {
    const emu = await emulator();
    await addFault(emu, { match: { path: '/v1/invoices' }, action: { drop: true }, when: 'after_commit', times: 1 });
    const key = ikey();
    expect(await rawCreate(emu, key)).toBe('dropped');
    expect(await rawCreate(emu, key)).toBe(200);
    expect(await count(emu)).toBe(1);
  });

  it('only a success is faulted after the commit: a refused request answers as usual and keeps the fault', async () => {
    const emu = await emulator();
    await addFault(emu, { match: { path: '/v1/invoices' }, action: { status: 500 }, when: 'after_commit', times: 1 });
    expect((await createTyped(emu, ikey(), 'nope')).status).toBe(400);
    expect(await faults(emu)).toHaveLength(1);
  });
});

describe('bad faults, listing, clearing, in-process', () => {
  it('refuses a path that matches no route naming match.path, and other bad fields naming them', async () => {
    const emu = await emulator();
    const cases: [unknown, string][] = [
      [{ match: { path: '/v1/nothing-here' }, action: { status: 503 }, when: 'before' }, 'match.path'],
      [{ match: { path: '/__emulator/reset' }, action: { status: 503 }, when: 'before' }, 'match.path'],
      [{ match: {}, action: { status: 200 }, when: 'before' }, 'action'],
      [{ match: {}, action: { delayMs: 0 }, when: 'before' }, 'action'],
      [{ match: {}, action: { status: 503 }, when: 'sometimes' }, 'when'],
      [{ match: {}, action: { status: 503 }, when: 'before', times: 0 }, 'times'],
    ];
    // Raw HTTP: these bodies are ones the typed client's types would not let a user write.
    for (const [body, param] of cases) {
      const res = await emu.call('POST', '/__emulator/faults', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.param?.startsWith(param), `${res.body.error.param} for ${JSON.stringify(body)}`).toBe(true);
    }
    expect(await faults(emu)).toEqual([]);
  });

  it('DELETE one by id (404 fault_not_found after), list oldest first; the control plane is never faulted', async () => {
    const emu = await emulator();
    const a = await addFault(emu, { match: {}, action: { status: 503 }, when: 'before' });
    const b = await addFault(emu, { match: { method: 'GET' }, action: { status: 500 }, when: 'before' });
    expect((await faults(emu)).map((f) => f.id)).toEqual([a.id, b.id]);
    expect((await emu.client.test.getClock()).status).toBe(200);
    expect((await emu.client.test.deleteFault({ params: { id: a.id } })).status).toBe(204);
    expectRefused(await emu.client.test.deleteFault({ params: { id: a.id } }), 404, 'fault_not_found');
  });

  it('emulator.faults.add / list / clear, with the same validation', async () => {
    const emu = await emulator();
    const fault = emu.faults.add({ match: { path: '/v1/invoices' }, action: { status: 429, retryAfter: 1 }, when: 'before', times: 2 });
    expect(fault.action).toEqual({ status: 429, code: 'too_many_requests', retryAfter: 1 });
    expect((await createTyped(emu)).status).toBe(429);
    expect(emu.faults.list()[0]).toMatchObject({ id: fault.id, times: 1, fired: 1 });
    expect(emu.faults.clear()).toBe(1);
    expect(() => emu.faults.add({ match: { path: '/v1/nope' }, action: { status: 503 }, when: 'before' })).toThrow(/match\.path/);
  });
});
