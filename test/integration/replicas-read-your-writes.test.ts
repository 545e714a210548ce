/**
 * CONTRACT §12 (amended, issue 40) "Read your writes, across replicas": a change one replica
 * acknowledged (clock, faults, chaos, keys, webhook configuration, listener registration, restore)
 * is in force for the very next request to any replica, every time. Before, B learnt of it from a
 * notification a few ms after A answered (2 of 25 faults, 12 of 40 chaos settings missed). Here B's
 * change channel is cut before each change (a replica may lose it any time): only what B reads from
 * the store can tell it. `--clock-start` describes the sandbox: the first replica stores it, the
 * others follow it, another start is refused.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey, type TestEmulator } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();
const SECRET = 'whsec_ryw_0123456789abcdef';

/** Ends every replica's LISTEN connection: what another replica says next, nobody hears. */
async function cutChannels(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'svc-changes'");
  } finally {
    await client.end();
  }
}

const clockOf = async (e: TestEmulator) => (await e.call('GET', '/__emulator/clock')).body;

describe('read your writes across replicas (cut off from the change channel)', () => {
  it('a fault added through A is in force for the next request to B, and cleared through B for the next to A', async () => {
    const url = await server.createDatabase();
    const [a, b] = (await replicas.start(url, 2)) as [TestEmulator, TestEmulator];
    for (let i = 0; i < 10; i++) {
      await cutChannels(url);
      const added = await a.call('POST', '/__emulator/faults', {
        body: { match: { method: 'GET', path: '/v1/invoices' }, action: { status: 503 }, when: 'before' },
      });
      expect(added.status).toBe(201);
      expect((await b.call('GET', '/v1/invoices', { key: b.keys.test.merchantKey })).status, `try ${i + 1}`).toBe(503);
      expect((await b.call('DELETE', '/__emulator/faults')).status).toBe(200);
      expect((await a.call('GET', '/v1/invoices', { key: a.keys.test.merchantKey })).status, `try ${i + 1}`).toBe(200);
    }
  });

  it('chaos set through A is what B answers next; cleared, gone at once', async () => {
    const url = await server.createDatabase();
    const [a, b] = (await replicas.start(url, 2)) as [TestEmulator, TestEmulator];
    const chaosOn = async (e: TestEmulator) => (await e.call('GET', '/__emulator/webhook-chaos', { key: e.keys.test.partnerKey })).body;
    for (let i = 0; i < 10; i++) {
      await cutChannels(url);
      expect((await a.call('PUT', '/__emulator/webhook-chaos', { key: a.keys.test.partnerKey, body: { duplicate: 1, seed: i } })).status).toBe(200);
      expect(await chaosOn(b), `try ${i + 1}`).toMatchObject({ active: true, duplicate: 1, seed: i });
      expect((await a.call('DELETE', '/__emulator/webhook-chaos', { key: a.keys.test.partnerKey })).status).toBe(204);
      expect((await chaosOn(b)).active, `try ${i + 1}`).toBe(false);
    }
  });

  it('an advance through A is the time of B’s next request', async () => {
    const url = await server.createDatabase();
    const [a, b] = (await replicas.start(url, 2)) as [TestEmulator, TestEmulator];
    for (let i = 1; i <= 5; i++) {
      await cutChannels(url);
      expect((await a.call('POST', '/__emulator/clock/advance', { body: { seconds: 60 } })).status).toBe(200);
      expect((await clockOf(b)).offsetSeconds).toBe(60 * i);
    }
  });

  it('a webhook URL changed through A is where B’s next create sends its event', async () => {
    const url = await server.createDatabase();
    const [a, b] = (await replicas.start(url, 2)) as [TestEmulator, TestEmulator];
    const urlOf = async (invoiceId: string) => (await a.query(`SELECT url FROM deliveries WHERE invoice_id = '${invoiceId}' AND target = 'webhook'`))[0]?.url;
    const createOnB = async () => dataOf(await b.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201).id;
    dataOf(await a.client.test.putWebhook({ body: { url: 'http://127.0.0.1:9/first', secret: SECRET } }));
    expect(await urlOf(await createOnB())).toBe('http://127.0.0.1:9/first');
    for (const next of ['second', 'third']) {
      await cutChannels(url);
      dataOf(await a.client.test.putWebhook({ body: { url: `http://127.0.0.1:9/${next}`, secret: SECRET } }));
      expect(await urlOf(await createOnB())).toBe(`http://127.0.0.1:9/${next}`);
    }
  });

  it('a key a restore through A revoked is refused by B’s next request', async () => {
    const url = await server.createDatabase();
    const [a, b] = (await replicas.start(url, 2)) as [TestEmulator, TestEmulator];
    await a.snapshot('before-partner');
    const partner = dataOf(await a.client.test.createPartner({ body: { name: 'Later partner' } }), 201);
    const key = partner.test.partnerKey as string;
    // B knows the key (and keeps it: its cache of valid keys).
    expect((await b.call('GET', '/v1/partner/invoices', { key })).status).toBe(200);
    await cutChannels(url);
    await a.restore('before-partner');
    expect((await b.call('GET', '/v1/partner/invoices', { key })).status).toBe(401);
  });
});

describe('--clock-start describes the sandbox', () => {
  const START = '2030-01-01T00:00:00.000Z';

  it('the first replica stores it, a replica started without it follows it, an advance through either is both’s', async () => {
    const url = await server.createDatabase();
    const [a] = (await replicas.start(url, 1, { clockStart: START })) as [TestEmulator];
    const [b] = (await replicas.start(url, 1)) as [TestEmulator];
    expect((await clockOf(b)).now).toBe(START);
    await cutChannels(url);
    expect((await a.call('POST', '/__emulator/clock/advance', { body: { seconds: 3600 } })).status).toBe(200);
    expect((await clockOf(b)).now).toBe('2030-01-01T01:00:00.000Z');
    // B's invoice is dated on the sandbox's clock, not B's own.
    const invoice = dataOf(await b.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
    const [row] = await a.query(`SELECT created_at FROM invoices WHERE id = '${invoice.id}'`);
    expect(Number(row?.created_at)).toBe(Date.parse('2030-01-01T01:00:00.000Z'));
    // A replica started with the same start follows the advanced clock too.
    const [c] = (await replicas.start(url, 1, { clockStart: START })) as [TestEmulator];
    expect((await clockOf(c)).now).toBe('2030-01-01T01:00:00.000Z');
  });

  it('a replica given another start is refused, naming both', async () => {
    const url = await server.createDatabase();
    await replicas.start(url, 1, { clockStart: START });
    await expect(replicas.start(url, 1, { clockStart: '2031-06-01T00:00:00Z' })).rejects.toMatchObject({
      name: 'UserError',
      code: 'clock_start_differs',
      message: expect.stringMatching(/2030-01-01T00:00:00\.000Z.*2031-06-01T00:00:00\.000Z/),
    });
  });
});
