/**
 * A full disk, deterministically (CONTRACT §8 "Disk full"): `PRAGMA max_page_count` makes SQLite
 * answer SQLITE_FULL exactly as on a full filesystem. Writes answer 507 `storage_full` and store
 * nothing, health answers 503 "degraded" until a write succeeds again, reads keep working. (The
 * reliability test `disk-full` does the same to a real `svc dev` under a file size limit.)
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ db: path.join(tempDir(), 'full.sqlite') });
});
afterAll(() => emu.stop());

const create = (key = ikey()) => emu.client.test.createInvoice({ body: { amount: '1.00' }, idempotencyKey: key });
const invoiceCount = () => (emu.store.sqlite.prepare('SELECT count(*) AS n FROM invoices').get() as { n: number }).n;

describe('the database file cannot grow', () => {
  it('creates answer 507, health is degraded until a write succeeds, and nothing half-written stays', async () => {
    const first = dataOf(await create(), 201);
    // No room for one more page (in WAL mode the limit applies to the database as the log sees it).
    const pages = emu.store.sqlite.pragma('page_count', { simple: true }) as number;
    emu.store.sqlite.pragma(`max_page_count = ${pages}`);

    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof create>> | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const res = await create(`full-${i}`);
      statuses.push(res.status);
      if (res.status !== 201) refused = res;
    }
    expect(refused?.status).toBe(507);
    expect(refused?.ok === false && refused.error).toEqual({ code: 'storage_full', message: expect.stringMatching(/disk is full/) });
    const stored = invoiceCount();

    // Raw HTTP: a degraded health is a 503 whose body is not the contract's error shape, so the typed
    // client (which reads any 4xx/5xx as an error) cannot show it.
    const health = await emu.call('GET', '/__emulator/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'degraded', reason: expect.stringMatching(/SQLITE_FULL/) });
    expect((await emu.client.test.getInvoice({ params: { id: first.id } })).status).toBe(200);
    // The refused create left nothing: its key creates anew once there is room (201, not a replay).
    expect(invoiceCount()).toBe(stored);

    emu.store.sqlite.pragma('max_page_count = 1073741823');
    const again = await create(`full-${statuses.length - 1}`);
    expect(again.status).toBe(201);
    expect(dataOf(await emu.client.test.getHealth()).status).toBe('ok');
  });
});
