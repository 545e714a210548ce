/**
 * CONTRACT §12: keys are one for every replica of a PostgreSQL database. Each replica caches the
 * keys it has seen (server/auth.ts); a key revoked through another replica (a reset here) must stop
 * working everywhere within 100 ms, and a key created through another works everywhere at once.
 */
import { describe, expect, it } from 'vitest';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet, until } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();

describe('keys across replicas', () => {
  it('a key revoked through A stops working on B, which had it cached', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    const partner = await a!.call('POST', '/__emulator/partners', { body: { name: 'Revoked soon' } });
    expect(partner.status).toBe(201);
    const key: string = partner.body.test.partnerKey;
    // Created through A, known to B at once (a cache miss reads the store); now in B's cache.
    expect((await b!.call('GET', '/v1/partner/merchants', { key })).status).toBe(200);
    expect((await b!.call('GET', '/v1/partner/merchants', { key })).status).toBe(200);
    // A reset through A deletes the partner and its keys.
    expect((await a!.call('POST', '/__emulator/reset')).status).toBe(200);
    expect((await a!.call('GET', '/v1/partner/merchants', { key })).status).toBe(401);
    // B forgets it once told (within ms; 2 s is the ceiling, not the promise).
    await until('B to refuse the revoked key', async () => (await b!.call('GET', '/v1/partner/merchants', { key })).status === 401, 2000);
    // The default keys survive a reset, on both.
    expect((await b!.call('GET', '/v1/partner/merchants', { key: b!.keys.test.partnerKey })).status).toBe(200);
  });

  it('a merchant key created through A works on B at once', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    const created = await a!.call('POST', `/__emulator/merchants/${a!.keys.test.merchantId}/keys`);
    expect(created.status).toBe(201);
    expect((await b!.call('GET', '/v1/invoices', { key: created.body.merchantKey })).status).toBe(200);
  });
});
