// reset() in-process, as a test suite's beforeEach calls it: an emulator on an in-memory database
// (what tests use), filled with `invoices` invoices over HTTP before each timed reset. argv[2]:
// {invoices, rounds}. Prints one JSON line: {filled: [ms…], empty: [ms…]}, the reset times with the
// invoices stored and with only the defaults.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { startEmulator } from '../../dist/index.js';

const { invoices = 1000, rounds = 7, database } = JSON.parse(process.argv[2] ?? '{}');
// `database`: a PostgreSQL URL (bench/cases/postgres.mjs), else the in-memory SQLite tests use.
const emulator = await startEmulator({ port: 0, ...(database ? { database } : { db: ':memory:' }) });
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
let n = 0;

function create() {
  const body = JSON.stringify({ merchantId: emulator.keys.test.merchantId, amount: '25.00' });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${emulator.url}/v1/partner/invoices`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${emulator.keys.test.partnerKey}`,
          'content-type': 'application/json',
          'idempotency-key': `reset-probe-${n++}`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`create answered ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function fill() {
  for (let done = 0; done < invoices; done += 8) await Promise.all(Array.from({ length: Math.min(8, invoices - done) }, create));
}

async function timedReset() {
  const t = performance.now();
  await emulator.reset();
  return performance.now() - t;
}

const filled = [];
const empty = [];
for (let i = 0; i < rounds; i++) {
  await fill();
  filled.push(await timedReset());
  empty.push(await timedReset());
}
agent.destroy();
await emulator.stop();
process.stdout.write(`${JSON.stringify({ filled, empty })}\n`);
