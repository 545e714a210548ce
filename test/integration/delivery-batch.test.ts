/**
 * The dispatcher writes the attempts that finished together in one batch (src/webhooks/completion.ts:
 * the deliveries read in one statement, written in two on PostgreSQL, issue 27). Two attempts of ONE
 * delivery in a batch, a scheduled one and a resend, must still count one after the other: numbers
 * 1 and 2, and the delivery's state from the later. A receiver of its own holds the first request
 * until the second arrives and answers both at once, so that both finish in the same turn.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator } from '../helpers/emulator.js';
import { until } from '../helpers/replicas.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Holds requests until two arrived, then answers the first 500 and the second 200, together. */
async function pairedReceiver(): Promise<{ url: string; arrived: () => number }> {
  const held: http.ServerResponse[] = [];
  let arrived = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived++;
      held.push(res);
      if (held.length === 2) {
        held[0]!.writeHead(500).end('no');
        held[1]!.writeHead(200).end('ok');
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrived: () => arrived };
}

describe('attempts written in a batch', () => {
  it('a scheduled attempt and a resend of one delivery finishing together are numbered 1 and 2, and the success stands', async () => {
    const emu = await startTestEmulator();
    const rx = await pairedReceiver();
    const { test } = emu.client;
    dataOf(await test.putWebhook({ body: { url: rx.url, secret: 'whsec_batch_0123456789' } }));
    const invoice = dataOf(await test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
    // The scheduled attempt is held at the receiver; the resend joins it there.
    await until('the scheduled attempt to arrive', () => rx.arrived() === 1);
    const [delivery] = await emu.query(`SELECT id FROM deliveries WHERE invoice_id = '${invoice.id}'`);
    const resent = test.resendDelivery({ params: { id: String(delivery!.id) } });
    await until('both attempts to be recorded', async () => (await emu.query('SELECT id FROM delivery_attempts')).length === 2);
    await resent;
    const attempts = await emu.query('SELECT number, trigger, response_status FROM delivery_attempts ORDER BY number');
    expect(attempts).toEqual([
      { number: 1, trigger: 'scheduled', response_status: 500 },
      { number: 2, trigger: 'manual', response_status: 200 },
    ]);
    expect(await emu.query(`SELECT status, attempt_count FROM deliveries WHERE id = '${delivery!.id}'`)).toEqual([{ status: 'succeeded', attempt_count: 2 }]);
    await emu.stop();
  });
});
