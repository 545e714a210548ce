// Counts the round trips (statements) a create, a read and a delivery cost on PostgreSQL:
// deterministic, unlike the req/s rows, so a change's effect is exact (docs/performance.md "The
// PostgreSQL store"). The in-process emulator reaches a throwaway cluster through a TCP relay here that
// reads the frontend protocol: each simple Query ('Q') or Sync ('S', the end of an extended query)
// is one round trip. The change channel's LISTEN connection (application_name svc-changes) is left
// out. Prints one JSON line: {create, read, delivery, statements: {kind: [sql…]}}; --verbose indents.
// Run: node bench/lib/statement-probe.mjs (after `node scripts/build.mjs`).
import http from 'node:http';
import net from 'node:net';
import { manualClock, startEmulator } from '../../dist/index.js';
import { startPostgres } from './postgres.mjs';

const DELIVERIES = 50;
let log = null;

/** The frontend messages of one connection, as they pass: the startup packet first (no type byte). */
function watch(socket) {
  let buffer = Buffer.alloc(0);
  let started = false;
  let ours = true;
  let parsed = '';
  let trip = [];
  /** This connection's named statements: name → text. */
  const prepared = new Map();
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (!started) {
        if (buffer.length < 4) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        const packet = buffer.subarray(8, length).toString('utf8').split('\0');
        if (packet[packet.indexOf('application_name') + 1] === 'svc-changes') ours = false;
        buffer = buffer.subarray(length);
        started = true;
        continue;
      }
      if (buffer.length < 5) return;
      const type = String.fromCharCode(buffer[0]);
      const length = buffer.readInt32BE(1);
      if (buffer.length < 1 + length) return;
      const body = buffer.subarray(5, 1 + length);
      buffer = buffer.subarray(1 + length);
      if (!ours) continue;
      if (type === 'Q' && log) log.push(body.toString('utf8').replace(/\0$/, ''));
      if (type === 'P') {
        const [name, text] = body.toString('utf8').split('\0');
        parsed = text;
        if (name) prepared.set(name, text);
      }
      // A prepared statement's later calls send no text: their Bind names it (store/postgres/named-pool.ts).
      if (type === 'B') {
        const name = body.toString('utf8').split('\0')[1];
        trip.push(name ? (prepared.get(name) ?? `(prepared ${name})`) : parsed);
      }
      // One Sync ends a round trip (pg sends one per statement).
      if (type === 'S') {
        if (log) log.push(trip.join('; '));
        trip = [];
      }
    }
  });
}

/** A relay on a free port to `target`'s port, watching what the client sends. */
async function relay(port) {
  const proxy = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    watch(client);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

const counted = async (fn) => {
  log = [];
  await fn();
  // What the request set off after answering (a NOTIFY in the next turn) belongs to it too.
  await new Promise((resolve) => setTimeout(resolve, 50));
  // The shared request journal's INSERT (issue 28) is left out: under load one statement carries a
  // batch of requests' entries (~46 in #19), here, one request at a time, one each.
  const seen = log.filter((sql) => !sql.includes('request_journal'));
  log = null;
  return seen;
};

/** The fewest of `n` runs: the scheduler's occasional look at the tables only ever adds to one. */
async function fewest(n, fn) {
  let best;
  for (let i = 0; i < n; i++) {
    const seen = await counted(fn);
    if (!best || seen.length < best.length) best = seen;
  }
  return best;
}

const server = await startPostgres();
const received = [];
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received.push(req.headers['svc-event-type'] ?? '');
    res.end('ok');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const clock = manualClock(Date.now());
const direct = new URL(await server.createDatabase());
const proxy = await relay(Number(direct.port));
direct.port = String(proxy.address().port);
const emulator = await startEmulator({ port: 0, database: direct.href, clock });
try {
  const key = emulator.keys.test.partnerKey;
  const api = async (method, path, body, headers = {}) => {
    const res = await fetch(`${emulator.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  await api('PUT', '/v1/partner/webhook', { url: `http://127.0.0.1:${receiver.address().port}/`, secret: 'whsec_probe_0123456789', enabled: false });
  let n = 0;
  const create = () =>
    api('POST', '/v1/partner/invoices', { merchantId: emulator.keys.test.merchantId, amount: '25.00' }, { 'idempotency-key': `probe-${n++}` });
  // Warm: the first of each kind loads what later ones find cached.
  const first = await create();
  await api('GET', `/v1/partner/invoices/${first.id}`);
  const creates = await fewest(5, create);
  const reads = await fewest(5, () => api('GET', `/v1/partner/invoices/${first.id}`));
  for (let i = 0; i < DELIVERIES - 6; i++) await create();
  await api('PUT', '/v1/partner/webhook', { url: `http://127.0.0.1:${receiver.address().port}/`, enabled: true });
  const deliveries = await counted(async () => {
    await fetch(`${emulator.url}/__emulator/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"seconds":3601}' });
    const deadline = Date.now() + 60_000;
    while (received.length < DELIVERIES && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // Let the last results be written.
    await new Promise((r) => setTimeout(r, 500));
  });
  console.log(
    JSON.stringify(
      {
        create: creates.length,
        read: reads.length,
        delivery: deliveries.length / DELIVERIES,
        received: received.length,
        statements: { create: creates, read: reads, delivery: deliveries },
      },
      null,
      process.argv.includes('--verbose') ? 2 : undefined,
    ),
  );
} finally {
  await emulator.stop();
  receiver.close();
  proxy.close();
  await server.stop();
}
