/**
 * CONTRACT §12 "Many replicas, one sandbox" (issue 28): the request journal and the live views are
 * shared. Two emulators on one PostgreSQL database, in this process: a request answered by A is in
 * B's `GET /__emulator/requests`, B's requests stream and B's change feed; a delivery attempt shows
 * in both replicas' attempts streams, whichever made it; the journal stays bounded across replicas;
 * and what reaches the table is masked. Streams are raw HTTP (the typed client offers none).
 */
import http from 'node:http';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ikey, type TestEmulator } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { replicaSet, until } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();
const SECRET = 'whsec_views_0123456789abcdef';

/** One server-sent-event stream, read as it comes: every message's event name and parsed data. */
interface Stream {
  messages: { event: string; data: any }[];
  of(event: string): any[];
}

const open: http.ClientRequest[] = [];
const receivers: Receiver[] = [];
// Registered after replicaSet's: hooks run in reverse, so the streams end before the replicas stop.
afterEach(async () => {
  for (const req of open.splice(0)) req.destroy();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** Opens `path` on `emu` and resolves once its `ready` message came (the reader is attached). */
function stream(emu: TestEmulator, path: string, headers: Record<string, string> = {}): Promise<Stream> {
  const messages: Stream['messages'] = [];
  const req = http.get(`${emu.url}${path}`, { headers });
  open.push(req);
  return new Promise((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) reject(new Error(`${path} answered ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let at = buffer.indexOf('\n\n'); at !== -1; at = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (!event) continue;
          messages.push({ event, data: data === undefined ? null : JSON.parse(data) });
          if (event === 'ready') resolve({ messages, of: (name) => messages.filter((m) => m.event === name).map((m) => m.data) });
        }
      });
    });
  });
}

/** The journal as a replica answers it over HTTP (all of it, newest first). */
async function journalOf(emu: TestEmulator, query = ''): Promise<any[]> {
  const res = await emu.call('GET', `/__emulator/requests?limit=100${query}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('the request journal and the live views across replicas', () => {
  it('a create through A is in B’s journal, B’s requests stream and B’s change feed, once', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    const [onA, onB, changesB] = await Promise.all([
      stream(a!, '/__emulator/requests/stream'),
      stream(b!, '/__emulator/requests/stream'),
      stream(b!, '/__emulator/changes'),
    ]);
    const invoice = dataOf(await a!.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '3.00' } }), 201);

    // B answers from the shared table: the same entry A answers.
    const [entryOnB] = await until('B’s journal to hold A’s create', async () => {
      const found = await journalOf(b!, `&invoiceId=${invoice.id}`);
      return found.length > 0 && found;
    });
    expect(entryOnB).toMatchObject({ method: 'POST', path: '/v1/invoices', status: 201 });
    expect(await journalOf(a!, `&invoiceId=${invoice.id}`)).toEqual([entryOnB]);

    // B's live views: the entry, as A's own stream shows it, and a change of kind `request`.
    await until('B’s requests stream to show A’s create', () => onB.of('request').length > 0);
    expect(onB.of('request')).toEqual([entryOnB]);
    await until('A’s requests stream to show its create', () => onA.of('request').length > 0);
    expect(onA.of('request')).toEqual([entryOnB]);
    await until('B’s change feed to show A’s write', () => changesB.of('change').length > 0);
    expect(changesB.of('change')).toEqual([{ kind: 'request' }]);

    // A later write through A arrives after the first (write order): by then no copy of the first came,
    // on either side (the channel never echoes a replica's own entries back to it).
    dataOf(await a!.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '4.00' } }), 201);
    await until('B’s stream to show the second create', () => onB.of('request').length >= 2);
    await until('A’s stream to show the second create', () => onA.of('request').length >= 2);
    for (const s of [onA, onB]) expect(s.of('request').map((e) => JSON.parse(e.requestBody).amount)).toEqual(['3.00', '4.00']);
  });

  it('a delivery attempt shows in both replicas’ attempts streams and change feeds, whichever made it', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    const rx = await startReceiver({ status: 200 });
    receivers.push(rx);
    dataOf(await a!.client.test.putWebhook({ body: { url: rx.url, secret: SECRET } }));
    const auth = { authorization: `Bearer ${a!.keys.test.partnerKey}` };
    const [attemptsA, attemptsB, changesA, changesB] = await Promise.all([
      stream(a!, '/__emulator/deliveries/stream', auth),
      stream(b!, '/__emulator/deliveries/stream', auth),
      stream(a!, '/__emulator/changes'),
      stream(b!, '/__emulator/changes'),
    ]);
    const first = dataOf(await a!.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
    await rx.waitFor(1, 10_000);
    const attemptOf = (s: Stream, invoiceId: string) => s.of('attempt').filter((e) => e.invoiceId === invoiceId);
    await until(
      'both attempts streams to show the attempt',
      () => attemptOf(attemptsA, first.id).length > 0 && attemptOf(attemptsB, first.id).length > 0,
      10_000,
    );
    // The replica that made it reports its own event; the other rebuilds it from the rows: the same.
    const [onA] = attemptOf(attemptsA, first.id);
    expect(onA).toMatchObject({ type: 'delivery.result', ok: true, responseStatus: 200, status: 'succeeded', attempt: 1, eventType: 'invoice.created' });
    expect(attemptOf(attemptsB, first.id)).toEqual([onA]);
    for (const feed of [changesA, changesB]) await until('each change feed to show the delivery', () => feed.of('change').some((c) => c.kind === 'delivery'));

    // A second delivery after it: once both streams show it, neither holds a copy of the first.
    const second = dataOf(await b!.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '2.00' } }), 201);
    await until(
      'both streams to show the second attempt',
      () => attemptOf(attemptsA, second.id).length > 0 && attemptOf(attemptsB, second.id).length > 0,
      10_000,
    );
    expect(attemptOf(attemptsA, first.id)).toHaveLength(1);
    expect(attemptOf(attemptsB, first.id)).toHaveLength(1);
  });

  it('B’s change feed also shows control-plane writes made through A (the clock, faults), which the journal does not hold', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    const changesB = await stream(b!, '/__emulator/changes');
    expect((await a!.call('POST', '/__emulator/clock/advance', { body: { seconds: 60 } })).status).toBe(200);
    await until('B’s change feed to show A’s clock advance', () => changesB.of('change').length === 1);
    const fault = await a!.call('POST', '/__emulator/faults', { body: { match: { path: '/v1/invoices' }, action: { status: 503 }, when: 'before' } });
    expect(fault.status).toBe(201);
    await until('B’s change feed to show A’s new fault', () => changesB.of('change').length === 2);
    expect(changesB.of('change')).toEqual([{ kind: 'request' }, { kind: 'request' }]);
  });

  it('stays bounded at journalSize across replicas; every replica answers the same; a DELETE on one empties it for all', async () => {
    const database = await server.createDatabase();
    const [a, b] = await replicas.start(database, 2, { config: { journalSize: 5 } });
    for (let i = 0; i < 6; i++) {
      for (const emu of [a!, b!]) dataOf(await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: `${i + 1}.00` } }), 201);
    }
    // Each replica's read waits for its own pending entries (B's last batch may still be on its way
    // when A first reads); once both have read, both answer the same newest five.
    expect(await journalOf(a!)).toHaveLength(5);
    const onB = await journalOf(b!);
    const onA = await journalOf(a!);
    expect(onA).toHaveLength(5);
    expect(onB).toEqual(onA);
    const [count] = await a!.query('SELECT count(*) AS n FROM request_journal');
    expect(Number(count!.n)).toBe(5);
    // Pages walk the shared table: two pages of three and two, the same on either replica.
    const page1 = await b!.call('GET', '/__emulator/requests?limit=3');
    const page2 = await a!.call('GET', `/__emulator/requests?limit=3&startingAfter=${page1.body.data[2].id}`);
    expect(page1.body.hasMore).toBe(true);
    expect([...page1.body.data, ...page2.body.data]).toEqual(onA);
    expect(page2.body.hasMore).toBe(false);

    const cleared = await b!.call('DELETE', '/__emulator/requests');
    expect(cleared.body).toEqual({ deleted: 5 });
    expect(await journalOf(a!)).toEqual([]);
  });

  it('ignores a notification on svc’s channel that no replica sent: a forged `journal` re-sends nothing', async () => {
    // CONTRACT §12 "trust only its own" (issue 40): any role that may connect can NOTIFY on the
    // channel; one forged notification made every replica re-send old entries to its live viewers.
    const url = await server.createDatabase();
    const [a, b] = await replicas.start(url, 2);
    const onB = await stream(b!, '/__emulator/requests/stream');
    dataOf(await a!.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '5.00' } }), 201);
    await until('B’s requests stream to show A’s create', () => onB.of('request').length > 0);
    const [row] = await a!.query('SELECT replica, min(seq) AS first, max(seq) AS last FROM request_journal GROUP BY replica');
    const forger = new pg.Client({ connectionString: url });
    await forger.connect();
    try {
      const told = { r: row!.replica, from: Number(row!.first), to: Number(row!.last) };
      // As svc's notifications looked before they were signed, and as they look now, without the key.
      for (const payload of [
        { p: 'forged', t: 'journal', d: told },
        { m: JSON.stringify({ p: 'forged', t: 'journal', d: told }), s: '0'.repeat(64) },
      ]) {
        await forger.query('SELECT pg_notify($1, $2)', ['svc_changes', JSON.stringify(payload)]);
      }
    } finally {
      await forger.end();
    }
    // A write after the forgeries reaches B (its channel heard them first): nothing came in between.
    dataOf(await a!.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '6.00' } }), 201);
    await until('B’s stream to show the second create', () => onB.of('request').length >= 2);
    expect(onB.of('request').map((e) => JSON.parse(e.requestBody).amount)).toEqual(['5.00', '6.00']);
  });

  it('stores only masked text: no key, no secret reaches the table', async () => {
    const database = await server.createDatabase();
    const [a] = await replicas.start(database, 1);
    const { partnerKey, merchantKey } = a!.keys.test;
    // A key in the Authorization header (every request), in a query string and in a body; a webhook secret.
    dataOf(
      await a!.client.test.putWebhook({ body: { url: 'http://127.0.0.1:9/hooks', secret: SECRET, customHeaders: { 'X-Token': 'receiver-token-123456' } } }),
    );
    expect((await a!.call('GET', `/v1/invoices?api_key=${merchantKey}`, { key: merchantKey })).status).toBe(200);
    dataOf(await a!.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00', referenceId: partnerKey } }), 201);
    expect(await journalOf(a!)).toHaveLength(3);

    // Read from outside svc, as anyone with access to the database would.
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT id, method, path, entry::text AS entry FROM request_journal');
      expect(rows).toHaveLength(3);
      const stored = JSON.stringify(rows);
      for (const secret of [partnerKey, merchantKey, SECRET, 'receiver-token-123456']) expect(stored).not.toContain(secret);
      // What is there instead: the keys' prefixes and last four characters.
      expect(stored).toContain(`test_…${merchantKey.slice(-4)}`);
      expect(stored).toContain(`pt_test_…${partnerKey.slice(-4)}`);
    } finally {
      await client.end();
    }
  });
});
