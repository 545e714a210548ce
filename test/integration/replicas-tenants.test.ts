/**
 * CONTRACT §12 "Any replica answers any request with the same state", for what each create reads
 * of its partner: its webhook configuration, its merchants, its listener registration. A change
 * made through A is what B's next creates use (read from the database: nothing kept in memory).
 */
import { describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet, until } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();
const SECRET = 'whsec_tenants_0123456789';

describe('what a replica caches, across replicas', () => {
  it('a webhook URL changed through A is where B sends the events of its next creates', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    const urlOf = async (invoiceId: string) => (await a!.query(`SELECT url FROM deliveries WHERE invoice_id = '${invoiceId}'`))[0]?.url;
    const createOnB = async () => dataOf(await b!.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201).id;
    // Nobody listens there: only the URL the delivery was written with matters.
    dataOf(await a!.client.test.putWebhook({ body: { url: 'http://127.0.0.1:9/first', secret: SECRET } }));
    // B reads the configuration (and keeps it) for its create.
    expect(await urlOf(await createOnB())).toBe('http://127.0.0.1:9/first');
    expect(await urlOf(await createOnB())).toBe('http://127.0.0.1:9/first');
    dataOf(await a!.client.test.putWebhook({ body: { url: 'http://127.0.0.1:9/second', secret: SECRET } }));
    await until('B to write deliveries to the new URL', async () => (await urlOf(await createOnB())) === 'http://127.0.0.1:9/second', 5000);
  });

  it('a restore through A gives A and B the snapshot webhook configuration', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    const urlOf = async (invoiceId: string) => (await a!.query(`SELECT url FROM deliveries WHERE invoice_id = '${invoiceId}'`))[0]?.url;
    const create = async (on: typeof a) => dataOf(await on!.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201).id;
    dataOf(await a!.client.test.putWebhook({ body: { url: 'http://127.0.0.1:9/saved', secret: SECRET } }));
    dataOf(await a!.client.test.saveSnapshot({ body: { name: 'saved' } }), 201);
    dataOf(await a!.client.test.putWebhook({ body: { url: 'http://127.0.0.1:9/later', secret: SECRET } }));
    // Both keep the later configuration in memory.
    expect(await urlOf(await create(a))).toBe('http://127.0.0.1:9/later');
    expect(await urlOf(await create(b))).toBe('http://127.0.0.1:9/later');
    dataOf(await a!.client.test.restoreSnapshot({ params: { name: 'saved' } }));
    expect(await urlOf(await create(a))).toBe('http://127.0.0.1:9/saved');
    await until('B to write deliveries to the restored URL', async () => (await urlOf(await create(b))) === 'http://127.0.0.1:9/saved', 5000);
  });
});
