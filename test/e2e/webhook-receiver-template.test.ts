import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/**
 * templates/webhook-receiver.mjs, the example `svc init --receiver` writes, run as users run it
 * (`node webhook-receiver.mjs`) and fed real deliveries by a real emulator.
 */
const SECRET = 'whsec_template_test_secret_1';
let emu: TestEmulator;
let receiver: ChildProcessWithoutNullStreams;
let url: string;
const lines: string[] = [];

function waitForLine(test: (line: string) => boolean, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      const found = lines.find(test);
      if (found !== undefined) return resolve(found);
      if (Date.now() > deadline) return reject(new Error(`no such line; the receiver printed:\n${lines.join('\n')}`));
      setTimeout(poll, 20);
    };
    poll();
  });
}

beforeAll(async () => {
  emu = await startTestEmulator();
  receiver = spawn(process.execPath, [path.join(ROOT, 'templates', 'webhook-receiver.mjs')], { env: { ...process.env, WEBHOOK_SECRET: SECRET, PORT: '0' } });
  readline.createInterface({ input: receiver.stdout }).on('line', (l) => lines.push(l));
  url = /listening on (http:\/\/\S+)/.exec(await waitForLine((l) => l.startsWith('listening on')))![1]!;
  const put = await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url, secret: SECRET, enabled: true } });
  expect(put.status).toBe(200);
});
afterAll(async () => {
  receiver.kill('SIGTERM');
  await emu.stop();
});

async function createInvoice(amount: string): Promise<string> {
  const res = await emu.call('POST', '/v1/partner/invoices', {
    key: emu.keys.test.partnerKey,
    idempotencyKey: ikey(),
    body: { merchantId: emu.keys.test.merchantId, amount },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const pay = (invoiceId: string, body: object = {}) =>
  emu.call('POST', `/v1/test_helpers/invoices/${invoiceId}/payments`, { key: emu.keys.test.partnerKey, body });

const sign = (body: string, t: number, secret = SECRET) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
const post = (body: string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('templates/webhook-receiver.mjs', () => {
  it('verifies real deliveries, answers 2xx, and fulfils on invoice.paid', async () => {
    const id = await createInvoice('12.00');
    await pay(id);
    await waitForLine((l) => l === `verified invoice.created ${id}-1`);
    await waitForLine((l) => l === `verified invoice.paid ${id}-2`);
    expect(await waitForLine((l) => l.startsWith(`fulfilled invoice ${id}`))).toBe(`fulfilled invoice ${id} (12.00 USDC)`);
    const deliveries = await emu.call('GET', `/v1/partner/webhook/deliveries?invoiceId=${id}`, { key: emu.keys.test.partnerKey });
    for (const d of deliveries.body.data) {
      const settled = await waitForStatus(d.id);
      expect(settled.lastResponseStatus, JSON.stringify(settled)).toBe(200);
    }
  });

  it('handles each event once: a resend of invoice.paid is a duplicate and is not fulfilled again', async () => {
    const id = await createInvoice('3.00');
    await pay(id);
    await waitForLine((l) => l.startsWith(`fulfilled invoice ${id}`));
    const list = await emu.call('GET', `/v1/partner/webhook/deliveries?invoiceId=${id}&eventType=invoice.paid`, { key: emu.keys.test.partnerKey });
    const resend = await emu.call('POST', `/v1/partner/webhook/deliveries/${list.body.data[0].id}/resend`, { key: emu.keys.test.partnerKey });
    expect(resend.status).toBe(200);
    await waitForLine((l) => l === `duplicate invoice.paid ${id}-2: already handled`);
    expect(lines.filter((l) => l.startsWith(`fulfilled invoice ${id}`))).toHaveLength(1);
  });

  it('does not fulfil other events (invoice.partially_paid)', async () => {
    const id = await createInvoice('10.00');
    await pay(id, { amount: '4.00' });
    await waitForLine((l) => l === `verified invoice.partially_paid ${id}-2`);
    expect(lines.some((l) => l.startsWith(`fulfilled invoice ${id}`))).toBe(false);
  });

  it.each([
    ['a wrong signature', (body: string, now: number) => ({ 'x-service-signature': sign(body, now, 'whsec_someone_else_0000') }), 'signature mismatch'],
    ['a stale timestamp', (body: string, now: number) => ({ 'x-service-signature': sign(body, now - 301) }), 'stale timestamp'],
    ['a tampered body', (body: string, now: number) => ({ 'x-service-signature': sign(body.replace('PAID', 'PAIDX'), now) }), 'signature mismatch'],
    ['no signature', () => ({}), 'missing X-Service-Signature'],
    ['a malformed header', () => ({ 'x-service-signature': 'v1=abc' }), 'malformed signature header'],
  ])('rejects %s with 400', async (_what, headers, reason) => {
    const body = JSON.stringify({ id: `forged-${reason}`, type: 'invoice.paid', data: { invoiceId: 'forged', status: 'PAID' } });
    const res = await post(body, headers(body, Math.floor(Date.now() / 1000)));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(reason);
    expect(lines.some((l) => l.includes('forged'))).toBe(false);
  });
});

async function waitForStatus(deliveryId: string): Promise<{ status: string; lastResponseStatus: number | null }> {
  for (let i = 0; i < 100; i++) {
    const res = await emu.call('GET', `/v1/partner/webhook/deliveries/${deliveryId}`, { key: emu.keys.test.partnerKey });
    if (res.body.status !== 'pending') return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`delivery ${deliveryId} stayed pending`);
}
