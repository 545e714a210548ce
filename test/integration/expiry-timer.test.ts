import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator } from '../helpers/emulator.js';
import { startReceiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

/** CONTRACT §3: invoices expire on the clock with no request needed, and catch up after a stop. */
async function waitForStatus(get: () => Promise<string>, status: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if ((await get()) === status) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`status did not become ${status} within ${timeoutMs} ms`);
}

describe('expiry without a request', () => {
  it('a running emulator expires an invoice at expiresAt by its own timer, and delivers invoice.expired', async () => {
    const emu = await startTestEmulator({ config: { invoiceLifetimeSeconds: 1 } });
    const rx = await startReceiver();
    try {
      const api = emu.client.test;
      await api.putWebhook({ body: { url: rx.url, secret: 'whsec_timer_secret_1' } });
      const inv = dataOf(await api.createPartnerInvoice({ body: { merchantId: emu.keys.test.merchantId, amount: '1' }, idempotencyKey: ikey() }), 201);
      const expiresAt = Date.parse(inv.expiresAt);
      // Reads never expire anything themselves: the status can only change through the timer.
      await waitForStatus(async () => dataOf(await api.getPartnerInvoice({ params: { id: inv.id } })).status, 'EXPIRED', 4000);
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
      const received = await rx.waitFor(2);
      expect(received.map((r) => JSON.parse(r.rawBody).type)).toEqual(['invoice.created', 'invoice.expired']);
    } finally {
      await emu.stop();
      await rx.close();
    }
  });

  it('on start, invoices that fell due while the emulator was stopped expire at once', async () => {
    const db = path.join(tempDir(), 'catch-up.sqlite');
    const first = await startTestEmulator({ db, config: { invoiceLifetimeSeconds: 1 } });
    const inv = dataOf(
      await first.client.test.createPartnerInvoice({ body: { merchantId: first.keys.test.merchantId, amount: '1' }, idempotencyKey: ikey() }),
      201,
    );
    await first.stop();
    await new Promise((r) => setTimeout(r, 1300));

    const second = await startTestEmulator({ db, config: { invoiceLifetimeSeconds: 1 } });
    try {
      // The same database, so the same default keys: the second emulator's client reads the first one's invoice.
      const elapsed = await waitForStatus(async () => dataOf(await second.client.test.getPartnerInvoice({ params: { id: inv.id } })).status, 'EXPIRED', 2000);
      expect(elapsed).toBeLessThan(1000);
    } finally {
      await second.stop();
    }
  });

  it('clock/advance answers only after what fell due has run', async () => {
    const emu = await startTestEmulator();
    try {
      const api = emu.client.test;
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(dataOf(await api.createInvoice({ body: { amount: '1' }, idempotencyKey: ikey() }), 201).id);
      const res = dataOf(await api.advanceClock({ body: { seconds: 3600 } }));
      expect(res.expired).toBe(5);
      for (const id of ids) expect(dataOf(await api.getInvoice({ params: { id } })).status).toBe('EXPIRED');
    } finally {
      await emu.stop();
    }
  });
});
