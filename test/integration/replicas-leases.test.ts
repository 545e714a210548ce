/**
 * CONTRACT §12 "bounded claims" (issue 40): a claim whose token changed under a live attempt (another
 * claim took the row and wrote a lease its holder's clock placed an hour ahead, then that holder
 * vanished) does not stay `in flight` for good: the live attempt's late result is dropped, and the
 * next sweep lets go of a lease ending more than one lease length from now (measured on the
 * database's clock), so the delivery is attempted again and succeeds. Before, it waited for the hour.
 */
import { describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey, type TestEmulator } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';
import { replicaSet, until } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();

describe('claims and their leases', () => {
  it('a claim whose token changed under a live attempt is let go and delivered, not left in flight', async () => {
    // The first attempt is held 2 s: long enough to change its row under it.
    const receiver = await startReceiver((_req, n) => (n === 1 ? { status: 200, delayMs: 2000 } : { status: 200 }));
    try {
      const [emu] = (await replicas.start(await server.createDatabase(), 1, { leaseMs: 1000 })) as [TestEmulator];
      dataOf(await emu.client.test.putWebhook({ body: { url: receiver.url, secret: 'whsec_leases_0123456789' } }));
      const invoice = dataOf(await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
      await receiver.waitFor(1);
      const [row] = await emu.query(`SELECT id, in_flight FROM deliveries WHERE invoice_id = '${invoice.id}'`);
      expect(row?.in_flight).toBe(1);
      await emu.query(`UPDATE deliveries SET lease_token = 'elsewhere.1', lease_until = lease_until + 3600000 WHERE id = '${row!.id}'`);
      await until(
        'the delivery to be attempted again and succeed',
        async () => (await emu.query(`SELECT status, in_flight FROM deliveries WHERE id = '${row!.id}'`))[0]?.status === 'succeeded',
        15_000,
      );
      const [done] = await emu.query(`SELECT in_flight, attempt_count FROM deliveries WHERE id = '${row!.id}'`);
      // The held attempt's result was dropped (its claim was no longer the row's); the second one counts.
      expect(done).toMatchObject({ in_flight: 0, attempt_count: 1 });
      expect(receiver.requests.length).toBe(2);
    } finally {
      await receiver.close();
    }
  });
});
