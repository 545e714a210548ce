// emulator.restore() in-process, as a test suite's beforeEach would call it between tests: a
// snapshot of `invoices` invoices (created over HTTP, with their events and deliveries' rows), then
// timed restores of it, each after a few changes to discard. argv[2]: {invoices, rounds, db}. Prints
// one JSON line: {restore: [ms…], save: [ms…], reset: [ms…]} (reset: the same emulator's reset()).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startEmulator } from '../../dist/index.js';

const { invoices = 1000, rounds = 9, db = ':memory:' } = JSON.parse(process.argv[2] ?? '{}');
const dir = db === ':memory:' ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-snap-'));
const emulator = await startEmulator({ port: 0, db: dir ? path.join(dir, 'bench.sqlite') : ':memory:' });
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
          'idempotency-key': `snapshot-probe-${n++}`,
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

const timed = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

for (let done = 0; done < invoices; done += 8) await Promise.all(Array.from({ length: Math.min(8, invoices - done) }, create));
const save = [];
const restore = [];
for (let i = 0; i < rounds; i++) save.push(await timed(() => emulator.snapshot('bench')));
for (let i = 0; i < rounds; i++) {
  await Promise.all(Array.from({ length: 8 }, create));
  restore.push(await timed(() => emulator.restore('bench')));
}
const reset = [await timed(() => emulator.reset())];
agent.destroy();
await emulator.stop();
if (dir) fs.rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ restore, save, reset })}\n`);
