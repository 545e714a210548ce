import path from 'node:path';
import fs from 'node:fs';
import { cpuMsBetween, postgresTicks } from '../lib/process-cpu.mjs';
import { startPostgres } from '../lib/postgres.mjs';
import { load, start } from '../lib/processes.mjs';
import { createLoad } from './http.mjs';

/**
 * #22, #23: one replica against two on one PostgreSQL database (CONTRACT §12, issue 28), side by
 * side in one run: creates/s and deliveries/s, each a ratio of two replicas' rate to one's. No
 * balancer in between: the load generator splits its connections between the two replicas directly
 * (half each), so a proxy's own cost is not counted. Every process's CPU time during the load is
 * measured (the generator's with process.cpuUsage in its own process, each replica's likewise, the
 * PostgreSQL server's and its backends' from /proc), because on a machine with fewer cores than
 * processes the ratio says more about the cores than about svc. Then, on a scratch database with
 * log_statement = all, the statements one create sends to the server (docs/performance.md).
 */
export async function replicaRows(report, { events = 5000, turns = 2 } = {}) {
  const pg = await startPostgres();
  try {
    await creates(report, pg, turns);
    await deliveries(report, pg, events);
    await statementsPerCreate(pg);
  } finally {
    await pg.stop();
  }
}

const cpuMs = async (emulator) => {
  const { cpu, sent } = await emulator.ask('cpu');
  return { ms: (cpu.user + cpu.system) / 1000, sent };
};

/** Runs `measure()` while sampling the CPU of the replicas and the server; the CPU each used, in ms. */
async function withCpu(pg, replicas, measure) {
  const dataDir = path.join(pg.dir, 'data');
  const before = { replicas: await Promise.all(replicas.map(cpuMs)), pg: postgresTicks(dataDir) };
  const t0 = performance.now();
  const result = await measure();
  const seconds = (performance.now() - t0) / 1000;
  const after = { replicas: await Promise.all(replicas.map(cpuMs)), pg: postgresTicks(dataDir) };
  return {
    ...result,
    seconds,
    replicaMs: after.replicas.map((a, i) => a.ms - before.replicas[i].ms),
    sent: after.replicas.map((a, i) => a.sent - before.replicas[i].sent),
    pgMs: cpuMsBetween(before.pg, after.pg),
  };
}

/** 32 connections split evenly over `replicas`, one autocannon process each, for `duration` s. */
async function createsOn(pg, replicas, duration) {
  return withCpu(pg, replicas, async () => {
    const runs = await Promise.all(replicas.map((r) => load(createLoad(r, { connections: 32 / replicas.length, duration }))));
    return {
      rps: runs.reduce((s, r) => s + r.rps, 0),
      total: runs.reduce((s, r) => s + r.total, 0),
      non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
      generatorMs: runs.reduce((s, r) => s + r.cpuMicros / 1000, 0),
    };
  });
}

/** "replica 0.42 ms, PostgreSQL 0.31 ms, generator 0.12 ms per create; generator 14% of the CPU used" */
function cpuLine(m, per = m.total) {
  const replicas = m.replicaMs.reduce((s, v) => s + v, 0);
  const used = replicas + m.pgMs + (m.generatorMs ?? 0);
  const parts = [`svc ${(replicas / per).toFixed(2)} ms`, `PostgreSQL ${(m.pgMs / per).toFixed(2)} ms`];
  if (m.generatorMs !== undefined) parts.push(`generator ${(m.generatorMs / per).toFixed(2)} ms`);
  const share = m.generatorMs !== undefined ? `; generator ${((100 * m.generatorMs) / used).toFixed(0)}% of the CPU used` : '';
  return `${parts.join(', ')} of CPU each${share}; ${(used / 1000 / m.seconds).toFixed(2)} cores busy`;
}

async function creates(report, pg, turns) {
  const one = [await start('emulator-process.mjs', [JSON.stringify({ database: await pg.createDatabase() })])];
  const pair = await pg.createDatabase();
  // One after the other: the first migrates (the second would wait on the lock anyway).
  const two = [await start('emulator-process.mjs', [JSON.stringify({ database: pair })])];
  two.push(await start('emulator-process.mjs', [JSON.stringify({ database: pair })]));
  try {
    await createsOn(pg, one, 2);
    await createsOn(pg, two, 2);
    // In turns (one, two, one, two): a neighbour's burst of load costs one turn, not one side.
    const best = { one: undefined, two: undefined };
    for (let t = 0; t < turns; t++) {
      for (const [name, replicas] of [
        ['one', one],
        ['two', two],
      ]) {
        const m = await createsOn(pg, replicas, 10);
        console.log(
          `  #22 turn ${t + 1}, ${name}: ${Math.round(m.rps)} creates/s; ${cpuLine(m)}; replicas ${m.replicaMs.map((v) => (v / 1000).toFixed(1)).join(' + ')} s CPU`,
        );
        if (!best[name] || m.rps > best[name].rps) best[name] = m;
      }
    }
    report({
      id: 22,
      what: 'POST /v1/partner/invoices: two replicas vs one on one PostgreSQL (32 connections split between them, 10 s)',
      value: best.two.rps / best.one.rps,
      target: 1,
      better: 'higher',
      detail: `${Math.round(best.two.rps)} vs ${Math.round(best.one.rps)} req/s, non-2xx ${best.two.non2xx} and ${best.one.non2xx}; two: ${cpuLine(best.two)}; one: ${cpuLine(best.one)}`,
    });
  } finally {
    await Promise.all([...one, ...two].map((e) => e.stop()));
  }
}

/**
 * #5's measurement on `count` replicas of a fresh database: invoices made with the webhooks off, then
 * one advance (through the first replica) expires them all. The events belong to `PARTNERS` partners,
 * each with a receiver URL of its own: one receiver's attempts are capped at 64 in flight across all
 * replicas (CONTRACT §12: the cap counts every replica's), so with a single URL the replica holding
 * the slots would do all the work whatever the number of replicas.
 */
const PARTNERS = 4;
async function deliveryRate(pg, count, events) {
  const database = await pg.createDatabase();
  const replicas = [];
  for (let i = 0; i < count; i++) replicas.push(await start('emulator-process.mjs', [JSON.stringify({ database, countSent: true })]));
  const receiver = await start('receiver-process.mjs');
  try {
    const [first] = replicas;
    const call = (method, route, key, body, extra = {}) =>
      fetch(`${first.url}${route}`, {
        method,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json', ...extra },
        body: JSON.stringify(body),
      }).then((res) => res.json());
    const partners = [];
    for (let p = 0; p < PARTNERS; p++) {
      const { test } = await call('POST', '/__emulator/partners', null, { name: `bench ${p}` });
      const merchant = await call(
        'POST',
        '/v1/partner/merchants',
        test.partnerKey,
        { externalTenantId: `bench-${p}`, name: `bench ${p}`, email: 'bench@example.com' },
        { 'idempotency-key': `bench-merchant-${p}` },
      );
      const hook = `${receiver.url}?partner=${p}`;
      partners.push({ keys: { test: { partnerKey: test.partnerKey, merchantId: merchant.merchantId } }, url: first.url, hook });
      await call('PUT', '/v1/partner/webhook', test.partnerKey, { url: hook, secret: 'whsec_bench_0123456789', enabled: false });
    }
    await Promise.all(partners.map((p) => load({ ...createLoad(p), duration: undefined, amount: events / PARTNERS, connections: 16 / PARTNERS })));
    for (const p of partners) await call('PUT', '/v1/partner/webhook', p.keys.test.partnerKey, { url: p.hook, enabled: true });
    const m = await withCpu(pg, replicas, async () => {
      await fetch(`${first.url}/__emulator/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"seconds":3601}' });
      // Arrivals are counted by the receiver; the advance may answer before the last is sent.
      const deadline = Date.now() + 300_000;
      let expired = [];
      while (expired.length < events && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        expired = (await receiver.ask('stats')).arrivals.filter((a) => a[2] === 'invoice.expired').map((a) => a[1]);
      }
      expired.sort((a, b) => a - b);
      return { received: expired.length, rate: expired.length / ((expired.at(-1) - expired[0]) / 1000 || 0.001) };
    });
    return { ...m, total: m.received };
  } finally {
    await receiver.stop();
    await Promise.all(replicas.map((r) => r.stop()));
  }
}

async function deliveries(report, pg, events) {
  const one = await deliveryRate(pg, 1, events);
  const two = await deliveryRate(pg, 2, events);
  report({
    id: 23,
    what: `#5 on two replicas vs one on one PostgreSQL: ${events.toLocaleString('en')} deliveries to ${PARTNERS} partners' receivers`,
    value: two.rate / one.rate,
    target: 1,
    better: 'higher',
    detail: `${Math.round(two.rate)} vs ${Math.round(one.rate)} deliveries/s (${two.received} and ${one.received} received; sent by replica ${two.sent.join('/')}); two: ${cpuLine(two)}; one: ${cpuLine(one)} (receiver's CPU not counted)`,
  });
}

/**
 * The statements one create sends to PostgreSQL (each is one round trip: the driver awaits every
 * query, BEGIN and COMMIT included), from the server's own log on a scratch database with
 * log_statement = all: 100 creates without a webhook, then 100 with one (the delivery's claim and
 * result included). Printed, not a row: docs/performance.md reasons from it.
 */
async function statementsPerCreate(pg) {
  const database = await pg.createDatabase();
  const name = new URL(database).pathname.slice(1);
  await pg.psql(`ALTER DATABASE ${name} SET log_statement = 'all'`);
  const log = path.join(pg.dir, 'server.log');
  const emulator = await start('emulator-process.mjs', [JSON.stringify({ database })]);
  const receiver = await start('receiver-process.mjs');
  const count = (from, to) => {
    const lines = fs.readFileSync(log, 'utf8').slice(from, to).split('\n');
    const statements = lines.filter((l) => /LOG: {2}(statement|execute [^:]*):/.test(l)).map((l) => l.replace(/^.*LOG: {2}(statement|execute [^:]*): /, ''));
    const kinds = new Map();
    for (const s of statements) {
      const kind = s.replace(/\s+/g, ' ').slice(0, 48);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    return { total: statements.length, kinds };
  };
  const creates = async (n) => {
    for (let i = 0; i < n; i++) {
      await fetch(`${emulator.url}/v1/partner/invoices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emulator.keys.test.partnerKey}`, 'content-type': 'application/json', 'idempotency-key': `stmt-${Date.now()}-${i}` },
        body: JSON.stringify({ merchantId: emulator.keys.test.merchantId, amount: '25.00' }),
      });
    }
  };
  try {
    await creates(5); // warm: caches of keys and merchants filled, as under load
    const a = fs.statSync(log).size;
    await creates(100);
    const b = fs.statSync(log).size;
    await fetch(`${emulator.url}/v1/partner/webhook`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${emulator.keys.test.partnerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, secret: 'whsec_bench_0123456789' }),
    });
    await creates(5);
    const c = fs.statSync(log).size;
    await creates(100);
    for (let waited = 0; waited < 30_000 && (await receiver.ask('stats')).arrivals.length < 105; waited += 100) await new Promise((r) => setTimeout(r, 100));
    // The delivery results are written in batches a moment after the arrival.
    await new Promise((r) => setTimeout(r, 500));
    const d = fs.statSync(log).size;
    const plain = count(a, b);
    const hooked = count(c, d);
    const top = (k) =>
      [...k]
        .sort((x, y) => y[1] - x[1])
        .map(([s, n]) => `${(n / 100).toFixed(2)}× ${s}`)
        .join('\n      ');
    console.log(`  statements per create, no webhook: ${(plain.total / 100).toFixed(2)}\n      ${top(plain.kinds)}`);
    console.log(`  statements per create with its delivery: ${(hooked.total / 100).toFixed(2)}\n      ${top(hooked.kinds)}`);
  } finally {
    await receiver.stop();
    await emulator.stop();
    await pg.psql(`ALTER DATABASE ${name} RESET log_statement`);
  }
}
