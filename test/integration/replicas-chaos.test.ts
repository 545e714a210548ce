/**
 * CONTRACT §12: webhook chaos is shared by every replica of a PostgreSQL database: set through one,
 * in force on all (whichever replica attempts a delivery); cleared through one, gone from all.
 */
import { describe, expect, it } from 'vitest';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet, until } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();

describe('webhook chaos across replicas', () => {
  it('set through A is in force on B; cleared through B is gone from A', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    const put = await a!.call('PUT', '/__emulator/webhook-chaos', { key: a!.keys.test.partnerKey, body: { badSignature: 1, seed: 7 } });
    expect(put.status).toBe(200);
    const onB = async () => (await b!.call('GET', '/__emulator/webhook-chaos', { key: b!.keys.test.partnerKey })).body;
    await until('B to have A’s chaos', async () => (await onB()).active === true, 2000);
    expect(await onB()).toMatchObject({ active: true, badSignature: 1, seed: 7 });
    expect(b!.webhookChaos.get()).toMatchObject({ badSignature: 1 });
    expect((await b!.call('DELETE', '/__emulator/webhook-chaos', { key: b!.keys.test.partnerKey })).status).toBe(204);
    await until('A to have no chaos', () => a!.webhookChaos.get() === null, 2000);
  });

  it('set in-process on B (synchronous, written behind) reaches A', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    b!.webhookChaos.set({ duplicate: 1 });
    await until('A to have B’s chaos', () => a!.webhookChaos.get()?.duplicate === 1, 2000);
  });
});
