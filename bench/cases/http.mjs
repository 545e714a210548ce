import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load, paced, start } from '../lib/processes.mjs';

/** A fresh database file: what `svc dev` uses by default (WAL), and what keeps memory bounded. */
function dbFile() {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-')), 'emulator.sqlite');
}

/** A POST /v1/partner/invoices load config against `emulator` (a fresh Idempotency-Key each). */
export function createLoad(emulator, extra = {}) {
  return {
    url: `${emulator.url}/v1/partner/invoices`,
    method: 'POST',
    headers: { authorization: `Bearer ${emulator.keys.test.partnerKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ merchantId: emulator.keys.test.merchantId, amount: '25.00' }),
    freshIdempotencyKey: true,
    connections: 32,
    duration: 10,
    ...extra,
  };
}

/** #1, #2, #3: the emulator's throughput against a bare node:http server, and latency at half load. */
export async function httpThroughput(report) {
  const db = dbFile();
  const emulator = await start('emulator-process.mjs', [JSON.stringify({ db })]);
  try {
    // An invoice-sized fixed body for the baseline, so both sides move the same bytes.
    const sample = await (
      await fetch(`${emulator.url}/v1/partner/invoices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emulator.keys.test.partnerKey}`, 'content-type': 'application/json', 'idempotency-key': 'bench-sample' },
        body: JSON.stringify({ merchantId: emulator.keys.test.merchantId, amount: '25.00' }),
      })
    ).text();
    const baseline = await start('baseline-server.mjs', [sample]);
    try {
      // Warm both up so JIT and caches do not decide the figure.
      await load({ url: baseline.url, duration: 2 });
      await load(createLoad(emulator, { duration: 2 }));
      const base = await load({
        url: baseline.url,
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
        connections: 32,
        duration: 10,
      });
      const create = await load(createLoad(emulator));
      report({
        id: 1,
        what: 'POST /v1/partner/invoices vs bare node:http (32 connections, 10 s)',
        value: create.rps / base.rps,
        target: 0.35,
        better: 'higher',
        detail: `${Math.round(create.rps)} vs ${Math.round(base.rps)} req/s, non-2xx ${create.non2xx}`,
      });

      const id = JSON.parse(sample).id;
      const get = await load({
        url: `${emulator.url}/v1/partner/invoices/${id}`,
        headers: { authorization: `Bearer ${emulator.keys.test.partnerKey}` },
        connections: 32,
        duration: 10,
      });
      const baseGet = await load({ url: baseline.url, connections: 32, duration: 10 });
      report({
        id: 2,
        what: 'GET /v1/partner/invoices/{id} vs the same baseline',
        value: get.rps / baseGet.rps,
        target: 0.5,
        better: 'higher',
        detail: `${Math.round(get.rps)} vs ${Math.round(baseGet.rps)} req/s, non-2xx ${get.non2xx}`,
      });

      // At a steady rate (paced), and as autocannon's limiter shapes it (full-speed bursts at the
      // start of each second until the second's quota is sent), for comparison.
      const rate = Math.max(1, Math.round(create.rps / 2));
      const steady = await paced({ ...createLoad(emulator), rate });
      const bursts = await load(createLoad(emulator, { overallRate: rate }));
      report({
        id: 3,
        what: 'p99 latency of #1 at half its maximum rate',
        value: steady.p99,
        target: 10,
        better: 'lower',
        unit: 'ms',
        detail: `${rate} req/s sent at even intervals, p50 ${steady.p50} ms, non-2xx ${steady.non2xx}; in autocannon's per-second bursts: p50 ${bursts.p50} ms, p99 ${bursts.p99} ms`,
      });
      return create.rps;
    } finally {
      await baseline.stop();
    }
  } finally {
    await emulator.stop();
    fs.rmSync(path.dirname(db), { recursive: true, force: true });
  }
}

/**
 * #11: RSS after 60 s of #1's load against after 10 s. RSS breathes with the garbage collector, so
 * each point is the median of five samples a second apart (8–12 s and 56–60 s).
 */
export async function memoryGrowth(report) {
  const db = dbFile();
  const emulator = await start('emulator-process.mjs', [JSON.stringify({ db })]);
  try {
    const run = load(createLoad(emulator, { duration: 61 }));
    const samples = new Map();
    const started = Date.now();
    for (const second of [8, 9, 10, 11, 12, 56, 57, 58, 59, 60]) {
      await new Promise((r) => setTimeout(r, Math.max(0, started + second * 1000 - Date.now())));
      samples.set(second, (await emulator.ask('rss')).rss);
    }
    const result = await run;
    const median = (seconds) => seconds.map((s) => samples.get(s)).sort((a, b) => a - b)[2];
    const at10 = median([8, 9, 10, 11, 12]);
    const at60 = median([56, 57, 58, 59, 60]);
    report({
      id: 11,
      what: 'RSS after 60 s of #1’s load vs after 10 s',
      value: (at60 - at10) / at10,
      target: 0.1,
      better: 'lower',
      unit: 'growth',
      detail: `${mb(at10)} → ${mb(at60)} MB (medians of 5 samples) over ${result.total} creates (file database)`,
    });
  } finally {
    await emulator.stop();
    fs.rmSync(path.dirname(db), { recursive: true, force: true });
  }
}

export const mb = (bytes) => Math.round(bytes / 1048576);
