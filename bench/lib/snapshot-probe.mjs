// emulator.restore() in-process, as a test suite's beforeEach would call it between tests: a
// snapshot of `invoices` invoices (created over HTTP, with their events and deliveries' rows), then
// timed restores of it, each after a few changes to discard. argv[2]: {invoices, rounds, db}. Prints
// one JSON line: {restore: [ms…], save: [ms…], reset: [ms…]} (reset: the same emulator's reset()).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startEmulator } from '../../dist/index.js';
import { invoiceFiller } from './fill-invoices.mjs';

const { invoices = 1000, rounds = 9, db = ':memory:' } = JSON.parse(process.argv[2] ?? '{}');
const dir = db === ':memory:' ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-snap-'));
const emulator = await startEmulator({ port: 0, db: dir ? path.join(dir, 'bench.sqlite') : ':memory:' });
const filler = invoiceFiller(emulator, 'snapshot-probe');

const timed = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

await filler.fill(invoices);
const save = [];
const restore = [];
for (let i = 0; i < rounds; i++) save.push(await timed(() => emulator.snapshot('bench')));
for (let i = 0; i < rounds; i++) {
  await filler.fill(8);
  restore.push(await timed(() => emulator.restore('bench')));
}
const reset = [await timed(() => emulator.reset())];
filler.close();
await emulator.stop();
if (dir) fs.rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ restore, save, reset })}\n`);
