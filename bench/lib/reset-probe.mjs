// reset() in-process, as a test suite's beforeEach calls it: an emulator on an in-memory database
// (what tests use), filled with `invoices` invoices over HTTP before each timed reset. argv[2]:
// {invoices, rounds}. Prints one JSON line: {filled: [ms…], empty: [ms…]}, the reset times with the
// invoices stored and with only the defaults.
import { performance } from 'node:perf_hooks';
import { startEmulator } from '../../dist/index.js';
import { invoiceFiller } from './fill-invoices.mjs';

const { invoices = 1000, rounds = 7, database } = JSON.parse(process.argv[2] ?? '{}');
// `database`: a PostgreSQL URL (bench/cases/postgres.mjs), else the in-memory SQLite tests use.
const emulator = await startEmulator({ port: 0, ...(database ? { database } : { db: ':memory:' }) });
const filler = invoiceFiller(emulator, 'reset-probe');

async function timedReset() {
  const t = performance.now();
  await emulator.reset();
  return performance.now() - t;
}

const filled = [];
const empty = [];
for (let i = 0; i < rounds; i++) {
  await filler.fill(invoices);
  filled.push(await timedReset());
  empty.push(await timedReset());
}
filler.close();
await emulator.stop();
process.stdout.write(`${JSON.stringify({ filled, empty })}\n`);
