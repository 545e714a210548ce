import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '../lib/postgres.mjs';
import { paced, start } from '../lib/processes.mjs';
import { createLoad } from './http.mjs';
import { median, wholeProcess } from './startup.mjs';

const lib = path.join(path.dirname(fileURLToPath(import.meta.url)), '../lib');

/**
 * #18–#21: the PostgreSQL store as a team feels it (issue 39), on this machine: two replicas of one
 * PostgreSQL 15 cluster (bench/lib/postgres.mjs, synchronous commits), each create delivering its
 * `invoice.created` to a receiver. A steady 200 creates/s (100 through each replica) for 60 s, so
 * 200 deliveries/s, with 200 reads/s of invoices by id beside them: #18 a create's p99, #19 an
 * event's p99 from its creation to the receiver, #20 a read's p99. The targets are absolute (what a
 * team feels), the rows before them were ratios to SQLite: their last figures are in
 * docs/performance.md. #21: reset() with 10,000 invoices (the contract's bound, 1 s).
 */
export async function postgresRows(report, { seconds = 60, rate = 200, readRate = 200, resetInvoices = 10_000 } = {}) {
  const pg = await startPostgres();
  try {
    await steadyLoad(report, pg, { seconds, rate, readRate });
    const resets = async (options) => JSON.parse((await wholeProcess([path.join(lib, 'reset-probe.mjs'), JSON.stringify(options)])).stdout);
    const onSqlite = await resets({ invoices: resetInvoices, rounds: 3 });
    const onPostgres = await resets({ invoices: resetInvoices, rounds: 3, database: await pg.createDatabase() });
    report({
      id: 21,
      what: `#14 on PostgreSQL: \`reset()\` with ${resetInvoices.toLocaleString('en')} invoices stored`,
      value: median(onPostgres.filled),
      target: 1000,
      better: 'lower',
      unit: 'ms',
      detail: `median of 3; SQLite (in memory) ${median(onSqlite.filled).toFixed(1)} ms; PostgreSQL with only the defaults ${median(onPostgres.empty).toFixed(1)} ms`,
    });
  } finally {
    await pg.stop();
  }
}

/** #18, #19, #20: creates, their deliveries and reads at steady rates, split over two replicas. */
async function steadyLoad(report, pg, { seconds, rate, readRate }) {
  const database = await pg.createDatabase();
  const receiver = await start('receiver-process.mjs');
  const replicas = [];
  try {
    // One after the other: the first migrates.
    for (let i = 0; i < 2; i++) replicas.push(await start('emulator-process.mjs', [JSON.stringify({ database })]));
    const [first] = replicas;
    await fetch(`${first.url}/v1/partner/webhook`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${first.keys.test.partnerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, secret: 'whsec_bench_0123456789' }),
    });
    // Warm-up, and invoices to read: 2 s at the same rate.
    await Promise.all(replicas.map((r) => paced({ ...createLoad(r), rate: rate / replicas.length, duration: 2 })));
    const ids = await invoiceIds(first, READ_IDS);
    await waitForArrivals(receiver, 0, 10_000);
    await receiver.ask('reset');

    const creates = replicas.map((r) => paced({ ...createLoad(r), rate: rate / replicas.length, duration: seconds, latencies: true }));
    const reads = replicas.map((r, i) =>
      paced({
        url: r.url,
        paths: ids
          .slice(i)
          .concat(ids.slice(0, i))
          .map((id) => `/v1/partner/invoices/${id}`),
        headers: { authorization: `Bearer ${r.keys.test.partnerKey}` },
        rate: readRate / replicas.length,
        duration: seconds,
        latencies: true,
      }),
    );
    const made = await Promise.all(creates);
    const read = await Promise.all(reads);
    const created = made.reduce((n, m) => n + (m.statusCodes['201'] ?? 0), 0);
    // Deliveries of the warm-up's creates were waited for; each create of the load delivers once.
    const arrivals = await waitForArrivals(receiver, created, 30_000);
    const delivered = arrivals.filter(([, , type]) => type === 'invoice.created');
    const createErrors = made.reduce((n, m) => n + m.non2xx + m.errors, 0);
    const readErrors = read.reduce((n, m) => n + m.non2xx + m.errors, 0);
    const missing = Math.max(0, created - delivered.length);
    const p99 = (values) => {
      const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? NaN;
    };
    const createLatencies = made.flatMap((m) => m.latencies);
    const deliveryLatencies = delivered.map(([createdAt, at]) => at - createdAt);
    const readLatencies = read.flatMap((m) => m.latencies);
    const rates = `${(createLatencies.length / seconds).toFixed(0)} creates/s, ${(deliveryLatencies.length / seconds).toFixed(0)} deliveries/s, ${(readLatencies.length / seconds).toFixed(0)} reads/s`;
    report({
      id: 18,
      what: `creates at ${rate}/s on two replicas of one PostgreSQL, ${seconds} s, each delivered: a create's p99`,
      value: p99(createLatencies),
      target: 50,
      better: 'lower',
      unit: 'ms',
      ...(createErrors ? { fails: `${createErrors} create errors` } : {}),
      detail: `${rates}; create errors ${createErrors} (${JSON.stringify(made.map((m) => m.statusCodes))}); p50 ${median(createLatencies).toFixed(1)} ms`,
    });
    report({
      id: 19,
      what: `#18's ${rate} deliveries/s: event to receipt, p99`,
      value: p99(deliveryLatencies),
      target: 50,
      better: 'lower',
      unit: 'ms',
      ...(missing ? { fails: `${missing} events not delivered` } : {}),
      detail: `${delivered.length} of ${created} delivered (${missing} missing); p50 ${median(deliveryLatencies).toFixed(1)} ms`,
    });
    report({
      id: 20,
      what: `reads by id at ${readRate}/s beside #18's load: a read's p99`,
      value: p99(readLatencies),
      target: 20,
      better: 'lower',
      unit: 'ms',
      ...(readErrors ? { fails: `${readErrors} read errors` } : {}),
      detail: `${readLatencies.length} reads of ${READ_IDS} invoices in turn, errors ${readErrors}; p50 ${median(readLatencies).toFixed(1)} ms`,
    });
  } finally {
    for (const r of replicas) await r.stop();
    await receiver.stop();
  }
}

const READ_IDS = 300;

/** The receiver's arrivals once it has at least `n` (or after `timeoutMs`), each [createdAt, at, type]. */
async function waitForArrivals(receiver, n, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { arrivals } = await receiver.ask('stats');
    if (arrivals.length >= n || Date.now() > deadline) return arrivals;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The ids of the newest `n` invoices of the emulator's test partner (its creates above made them). */
async function invoiceIds(emulator, n) {
  const ids = [];
  let after;
  while (ids.length < n) {
    const query = new URLSearchParams({ limit: '100', ...(after ? { startingAfter: after } : {}) });
    const res = await fetch(`${emulator.url}/v1/partner/invoices?${query}`, { headers: { authorization: `Bearer ${emulator.keys.test.partnerKey}` } });
    const { data, hasMore } = await res.json();
    ids.push(...data.map((invoice) => invoice.id));
    if (!hasMore) break;
    after = ids.at(-1);
  }
  if (ids.length < n) throw new Error(`bench: ${ids.length} invoices to read, ${n} wanted`);
  return ids.slice(0, n);
}
