/**
 * CONTRACT §9 webhook chaos: duplicates (same envelope id), delays, bad and stale signatures, each
 * recorded on the attempt; deterministic by seed; bad input names the field.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook, type WebhookVerificationError } from '../../src/webhooks/signature.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { type ClientInput, createClient } from '../../src/client/typed.js';
import { dataOf } from '../helpers/client-result.js';

const SECRET = 'whsec_chaos_test_secret_0123456';
const emulators: TestEmulator[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((e) => e.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
async function setup() {
  const emu = await startTestEmulator();
  emulators.push(emu);
  const receiver = await startReceiver();
  receivers.push(receiver);
  const api = emu.client.test;
  dataOf(await api.putWebhook({ body: { url: receiver.url, secret: SECRET } }));
  const chaos = (body: ClientInput<'putWebhookChaos'>['body']) => api.putWebhookChaos({ body });
  // Raw HTTP for bodies the client's types do not let a user write.
  const rawChaos = (body: unknown) => emu.call('PUT', '/__emulator/webhook-chaos', { key: emu.keys.test.partnerKey, body });
  const invoices = async (n: number) => {
    for (let i = 0; i < n; i++) dataOf(await api.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
  };
  const attempts = async () => {
    const list = dataOf(await api.listDeliveries({ query: { limit: 100 } })).data;
    const details = await Promise.all(list.map(async (d) => dataOf(await api.getDelivery({ params: { id: d.id } }))));
    return details.flatMap((d) => d.attempts);
  };
  return { emu, receiver, chaos, rawChaos, invoices, attempts };
}

const verdict = (raw: string, header: string) => {
  try {
    verifyWebhook(raw, header, SECRET);
    return 'ok';
  } catch (error) {
    return (error as WebhookVerificationError).code;
  }
};

describe('PUT /__emulator/webhook-chaos', () => {
  it('duplicates send the same envelope id twice, and the attempt records it', async () => {
    const { emu, receiver, chaos, invoices, attempts } = await setup();
    expect(dataOf(await chaos({ duplicate: 1, seed: 3 }))).toEqual({ partnerId: emu.keys.partnerId, environment: 'test', active: true, duplicate: 1, seed: 3 });
    await invoices(2);
    const got = await receiver.waitFor(4);
    const ids = got.map((r) => JSON.parse(r.rawBody).id).sort();
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).toBe(ids[3]);
    for (const r of got) expect(verdict(r.rawBody, String(r.headers['x-service-signature']))).toBe('ok');
    await emu.advanceClock(0);
    expect((await attempts()).map((a: any) => a.chaos)).toEqual(['duplicate', 'duplicate']);
  });

  it('bad and stale signatures fail verification as a receiver must make them fail; delays hold attempts back', async () => {
    const { receiver, chaos, invoices, attempts, emu } = await setup();
    dataOf(await chaos({ badSignature: 1 }));
    await invoices(1);
    const [bad] = await receiver.waitFor(1);
    expect(verdict(bad!.rawBody, String(bad!.headers['x-service-signature']))).toBe('signature_mismatch');
    dataOf(await chaos({ staleTimestamp: 1, delayMs: [150, 150] }));
    const started = Date.now();
    await invoices(1);
    const [, stale] = await receiver.waitFor(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(verdict(stale!.rawBody, String(stale!.headers['x-service-signature']))).toBe('timestamp_too_old');
    await emu.advanceClock(0);
    expect((await attempts()).map((a: any) => a.chaos).sort()).toEqual(['bad_signature', 'delay,stale_timestamp']);
  });

  it('is deterministic by seed: the same seed and events make the same decisions', async () => {
    const run = async (seed: number) => {
      const { chaos, invoices, attempts, emu, receiver } = await setup();
      dataOf(await chaos({ duplicate: 0.5, badSignature: 0.3, seed }));
      for (let i = 0; i < 12; i++) await invoices(1);
      await receiver.waitFor(12);
      await emu.advanceClock(0);
      // In creation order: deliveries are listed newest first.
      return (await attempts()).map((a: any) => a.chaos ?? '-').reverse();
    };
    const a = await run(11);
    const b = await run(11);
    expect(b).toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(1);
  });

  it('GET shows it, DELETE ends it; bad input names the field and changes nothing', async () => {
    const { emu, chaos, rawChaos } = await setup();
    const key = emu.keys.test.partnerKey;
    for (const [body, param] of [
      [{ duplicate: 1.5 }, 'duplicate'],
      [{ badSignature: -0.1 }, 'badSignature'],
      [{ delayMs: [500, 100] }, 'delayMs'],
      [{ reorder: 'yes' }, 'reorder'],
    ] as const) {
      const res = await rawChaos(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed' });
      expect(String(res.body.error.param).startsWith(param)).toBe(true);
    }
    const api = emu.client.test;
    expect(dataOf(await api.getWebhookChaos({ key })).active).toBe(false);
    dataOf(await chaos({ reorder: true }));
    expect(dataOf(await api.getWebhookChaos({ key }))).toMatchObject({ active: true, reorder: true });
    expect(dataOf(await emu.client.live.getWebhookChaos()).active).toBe(false);
    expect((await api.deleteWebhookChaos({ key })).status).toBe(204);
    expect(dataOf(await api.getWebhookChaos({ key })).active).toBe(false);
    expect((await createClient({ baseUrl: emu.url }).getWebhookChaos()).status).toBe(401);
  });

  it('in-process: emulator.webhookChaos', async () => {
    const { emu, receiver, invoices } = await setup();
    emu.webhookChaos.set({ duplicate: 1 });
    expect(emu.webhookChaos.get()).toEqual({ duplicate: 1 });
    await invoices(1);
    await receiver.waitFor(2);
    emu.webhookChaos.clear();
    expect(emu.webhookChaos.get()).toBeNull();
    expect(() => emu.webhookChaos.set({ duplicate: 2 })).toThrow(/duplicate/);
  });
});
