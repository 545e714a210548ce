/**
 * CONTRACT §7 `clock/advance {seconds: N}` moves the clock by exactly N seconds, however long the
 * due work it runs takes (issue 23: the offset grew by 3599 for 3600 while a slow delivery ran,
 * because the clock was set to an instant computed before the wait), and a frozen clock's offset
 * does not read the wall clock (CONTRACT §9: the same seed and clock start answer the same bytes).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const emulators: TestEmulator[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((e) => e.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

describe('clock/advance', () => {
  it('grows the offset by exactly the seconds asked while a slow delivery holds the advance', async () => {
    // The receiver answers after 1.5 s: the advance waits for that attempt before moving the clock.
    const receiver = await startReceiver({ status: 200, delayMs: 1500 });
    receivers.push(receiver);
    const emu = await startTestEmulator();
    emulators.push(emu);
    const api = emu.client.test;
    dataOf(await api.putWebhook({ body: { url: receiver.url, secret: 'whsec_clock_advance_0123456789' } }));
    const before = dataOf(await api.getClock());
    dataOf(await api.createInvoice({ idempotencyKey: ikey(), body: { amount: '1' } }), 201);
    const adv = dataOf(await api.advanceClock({ body: { seconds: 3600 } }));
    expect(receiver.requests.length).toBeGreaterThanOrEqual(1);
    expect(adv.offsetSeconds).toBe(before.offsetSeconds + 3600);
  });

  it('reports a frozen clock offset as how far it moved from its start', async () => {
    const emu = await startTestEmulator({ clockStart: '2030-01-01T00:00:00Z' });
    emulators.push(emu);
    expect(dataOf(await emu.client.test.getClock())).toEqual({ now: '2030-01-01T00:00:00.000Z', offsetSeconds: 0 });
    const adv = dataOf(await emu.client.test.advanceClock({ body: { seconds: 60 } }));
    expect(adv).toMatchObject({ now: '2030-01-01T00:01:00.000Z', offsetSeconds: 60, advancedSeconds: 60 });
  });
});

/**
 * The clock goes back (issue 38): `clock/reset` (`svc time reset`), a reset of the emulator and the
 * in-process `resetClock()` put it at the real time, or at its `clockStart`; invoices keep their times.
 */
describe('clock/reset', () => {
  it('puts an advanced system clock back to the real time: offset 0, now between wall times measured around it', async () => {
    const emu = await startTestEmulator();
    emulators.push(emu);
    const api = emu.client.test;
    dataOf(await api.advanceClock({ body: { seconds: 3660 } }));
    const invoice = dataOf(await api.createInvoice({ idempotencyKey: ikey(), body: { amount: '1' } }), 201);
    const w0 = Date.now();
    const reset = dataOf(await api.resetClock());
    const w1 = Date.now();
    expect(reset.offsetSeconds).toBe(0);
    expect(Date.parse(reset.now)).toBeGreaterThanOrEqual(w0);
    expect(Date.parse(reset.now)).toBeLessThanOrEqual(w1);
    expect(dataOf(await api.getClock()).offsetSeconds).toBe(0);
    // What was written under the advanced clock keeps its times.
    expect(dataOf(await api.getInvoice({ params: { id: invoice.id } })).expiresAt).toBe(invoice.expiresAt);
  });

  it('puts a frozen clock back to its start', async () => {
    const emu = await startTestEmulator({ clockStart: '2030-01-01T00:00:00Z' });
    emulators.push(emu);
    dataOf(await emu.client.test.advanceClock({ body: { seconds: 86_400 } }));
    expect(dataOf(await emu.client.test.resetClock())).toEqual({ now: '2030-01-01T00:00:00.000Z', offsetSeconds: 0 });
    await emu.advanceClock(60);
    await emu.resetClock();
    expect(new Date(emu.clock.now()).toISOString()).toBe('2030-01-01T00:00:00.000Z');
  });

  it('a reset of the emulator puts the clock back too, through the control plane and in-process', async () => {
    const emu = await startTestEmulator({ clockStart: '2030-01-01T00:00:00Z' });
    emulators.push(emu);
    dataOf(await emu.client.test.advanceClock({ body: { seconds: 3600 } }));
    dataOf(await emu.client.test.resetEmulator());
    expect(dataOf(await emu.client.test.getClock())).toEqual({ now: '2030-01-01T00:00:00.000Z', offsetSeconds: 0 });
    await emu.advanceClock(3600);
    await emu.reset();
    expect(dataOf(await emu.client.test.getClock()).offsetSeconds).toBe(0);
  });
});
