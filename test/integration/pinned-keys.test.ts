/**
 * Keys pinned in the config (CONTRACT §1, §8): a pinned key that changes between two starts on the
 * same database revokes the one it replaces, at once rather than at the next reset. The generated
 * key a first pin replaces goes the same way; keys issued through the control plane stay.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/domain/keys.js';
import { startEmulator, type Emulator, type StartEmulatorOptions } from '../../src/server/start.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('svc-pinned-');
const running: Emulator[] = [];
async function start(options: StartEmulatorOptions): Promise<Emulator> {
  const emu = await startEmulator({ port: 0, ...options });
  running.push(emu);
  return emu;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.stop()));
});

/** The status of a request made with `key` (merchant keys list invoices, partner keys merchants). */
async function statusWith(emu: Emulator, key: string): Promise<number> {
  const api = emu.client.test;
  return (await (key.startsWith('pt_') ? api.listMerchants({ key }) : api.listInvoices({ key }))).status;
}

describe('a pinned key that changes', () => {
  it('revokes the key it replaces at the next start: generated → pinned A → pinned B', async () => {
    const db = path.join(dir, 'emulator.sqlite');
    const first = await start({ db });
    const generated = first.keys.test;
    const issued = await first.client.test.createMerchantKey({ params: { id: generated.merchantId } });
    if (!issued.ok) throw new Error(issued.error.message);
    await first.stop();

    const a = { partnerKey: generateKey('partner', 'test'), merchantKey: generateKey('merchant', 'test') };
    const second = await start({ db, config: { keys: { test: a } } });
    expect(second.keys.test).toMatchObject(a);
    expect(await statusWith(second, a.partnerKey)).toBe(200);
    expect(await statusWith(second, a.merchantKey)).toBe(200);
    expect(await statusWith(second, generated.partnerKey)).toBe(401);
    expect(await statusWith(second, generated.merchantKey)).toBe(401);
    await second.stop();

    const b = { partnerKey: generateKey('partner', 'test'), merchantKey: generateKey('merchant', 'test') };
    const third = await start({ db, config: { keys: { test: b } } });
    expect(await statusWith(third, b.partnerKey)).toBe(200);
    expect(await statusWith(third, b.merchantKey)).toBe(200);
    expect(await statusWith(third, a.partnerKey)).toBe(401);
    expect(await statusWith(third, a.merchantKey)).toBe(401);
    // Untouched: the live keys (not pinned) and a key issued through the control plane.
    expect(await statusWith(third, first.keys.live.merchantKey)).toBe(200);
    expect(await statusWith(third, issued.data.merchantKey)).toBe(200);
    await third.stop();

    // Dropping the pin keeps the last pinned key: it is the default identity now.
    const fourth = await start({ db });
    expect(fourth.keys.test).toMatchObject(b);
    expect(await statusWith(fourth, b.merchantKey)).toBe(200);
  });
});
