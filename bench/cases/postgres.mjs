import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '../lib/postgres.mjs';
import { load, start } from '../lib/processes.mjs';
import { deliveryRate } from './delivery.mjs';
import { createLoad } from './http.mjs';
import { median, wholeProcess } from './startup.mjs';

const lib = path.join(path.dirname(fileURLToPath(import.meta.url)), '../lib');

/**
 * #18–#21: the PostgreSQL store beside SQLite, in one run on this machine (issue 27). A throwaway
 * PostgreSQL 15 cluster (bench/lib/postgres.mjs) with synchronous commits; SQLite on a file, as
 * `svc dev` runs. Each PostgreSQL figure is a ratio to SQLite's measured in the same run, except the
 * reset, whose bound (1 s) is the contract's.
 */
export async function postgresRows(report, { events = 10_000, resetInvoices = 10_000 } = {}) {
  const pg = await startPostgres();
  try {
    await throughput(report, pg);
    const sqlite = await deliveryRate({ db: ':memory:' }, events);
    const postgres = await deliveryRate({ database: await pg.createDatabase() }, events);
    report({
      id: 20,
      what: `#5 on PostgreSQL vs on SQLite: ${events.toLocaleString('en')} deliveries`,
      value: postgres.rate / sqlite.rate,
      target: 0.5,
      better: 'higher',
      detail: `${postgres.rate.toFixed(0)} vs ${sqlite.rate.toFixed(0)} deliveries/s (${postgres.received} and ${sqlite.received} received)`,
    });
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

/** #18, #19: creates and reads, the two engines loaded in turns after a warm-up of each. */
async function throughput(report, pg) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-')), 'emulator.sqlite');
  const sqlite = await start('emulator-process.mjs', [JSON.stringify({ db: file })]);
  const postgres = await start('emulator-process.mjs', [JSON.stringify({ database: await pg.createDatabase() })]);
  try {
    for (const emulator of [sqlite, postgres]) await load(createLoad(emulator, { duration: 2 }));
    const creates = { sqlite: await load(createLoad(sqlite)), postgres: await load(createLoad(postgres)) };
    report({
      id: 18,
      what: '#1 on PostgreSQL vs on SQLite: POST /v1/partner/invoices (32 connections, 10 s)',
      value: creates.postgres.rps / creates.sqlite.rps,
      target: 0.5,
      better: 'higher',
      detail: `${Math.round(creates.postgres.rps)} vs ${Math.round(creates.sqlite.rps)} req/s, non-2xx ${creates.postgres.non2xx} and ${creates.sqlite.non2xx}`,
    });
    // Reads of 1,000 different invoices in turn: 32 clients reading one row would let PostgreSQL's
    // batched reads (src/store/postgres/read-batch.ts) fetch it once for all of them.
    const reads = {};
    for (const [name, emulator] of Object.entries({ sqlite, postgres })) {
      const ids = await invoiceIds(emulator, READ_IDS);
      reads[name] = await load({
        url: emulator.url,
        paths: ids.map((id) => `/v1/partner/invoices/${id}`),
        headers: { authorization: `Bearer ${emulator.keys.test.partnerKey}` },
        connections: 32,
        duration: 10,
      });
    }
    report({
      id: 19,
      what: '#2 on PostgreSQL vs on SQLite: GET /v1/partner/invoices/{id}, 1,000 invoices in turn',
      value: reads.postgres.rps / reads.sqlite.rps,
      target: 0.7,
      better: 'higher',
      detail: `${Math.round(reads.postgres.rps)} vs ${Math.round(reads.sqlite.rps)} req/s, non-2xx ${reads.postgres.non2xx} and ${reads.sqlite.non2xx}`,
    });
  } finally {
    await sqlite.stop();
    await postgres.stop();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

const READ_IDS = 1000;

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
