import { startPostgres } from '../lib/postgres.mjs';
import { load, start } from '../lib/processes.mjs';
import { createLoad } from './http.mjs';

/**
 * Events/s of the healthy partner, split evenly over the two replicas. #7 runs 500/s on one SQLite
 * emulator; PostgreSQL on a 2-core machine creates ~300–500/s in all (#22), and this row adds the
 * dead partner's 100/s: 100 + 100/s leaves both replicas and the server room when the machine is
 * not shared (on a shared one the creates fall short of the rate: the detail gives what was made).
 */
const RATE = 100;
const DEAD_RATE = 100;
const SECONDS = 10;

/**
 * #24: #7 on two replicas of one PostgreSQL database (CONTRACT §12, issue 28). The healthy partner's
 * event-to-receipt latency (p50, p99) alone, beside a second partner's 100 events/s to a receiver
 * that answers (the control), then beside a third partner's 100 events/s to a receiver that never
 * answers; every partner's creates are split over the two replicas. The row is the worse of the two
 * ratios dead / answering: on two shared cores the second load's creates cost latency by themselves
 * (PostgreSQL's creates queue), and what the row asks is what the DEAD receiver adds to that. The dead receiver's attempts are capped at 64 in flight across
 * the replicas: the detail gives the most it held open at once (counted by the receiver) and each
 * replica's most at once (its sent attempts whose result was not stored yet).
 */
export async function replicaDeadReceiver(report) {
  const pg = await startPostgres();
  const replicas = [];
  const receiver = await start('receiver-process.mjs');
  const dead = await start('receiver-process.mjs', ['--hang']);
  try {
    const database = await pg.createDatabase();
    // One after the other: the first migrates.
    for (let i = 0; i < 2; i++) replicas.push(await start('emulator-process.mjs', [JSON.stringify({ database, countSent: true })]));
    const [first] = replicas;
    const call = (method, route, key, body, extra = {}) =>
      fetch(`${first.url}${route}`, {
        method,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json', ...extra },
        body: JSON.stringify(body),
      }).then((res) => res.json());
    await call('PUT', '/v1/partner/webhook', first.keys.test.partnerKey, { url: receiver.url, secret: 'whsec_bench_0123456789' });
    await split(replicas, (r) => createLoad(r), RATE, 2); // warm-up

    const alone = await measure(replicas, receiver);

    /** Another partner with its own receiver at `url`: its creates, split over the replicas. */
    const otherPartner = async (name, url) => {
      const { test } = await call('POST', '/__emulator/partners', null, { name });
      const merchant = await call(
        'POST',
        '/v1/partner/merchants',
        test.partnerKey,
        { externalTenantId: name, name, email: 'other@example.com' },
        { 'idempotency-key': `bench-${name.replace(/ /g, '-')}` },
      );
      await call('PUT', '/v1/partner/webhook', test.partnerKey, { url, secret: 'whsec_bench_0123456789' });
      return (r) => ({
        ...createLoad(r),
        headers: { authorization: `Bearer ${test.partnerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ merchantId: merchant.merchantId, amount: '1.00' }),
      });
    };
    /** The healthy partner's latencies while `creates` run at DEAD_RATE beside them. */
    const besideLoad = async (creates) => {
      const other = split(replicas, creates, DEAD_RATE, SECONDS + 2);
      // The dead receiver's cap fills within the first second (64 of 100 events/s).
      await new Promise((r) => setTimeout(r, 1000));
      const measured = await measure(replicas, receiver);
      return { ...measured, run: await other };
    };
    // The control: the same second load to a receiver that answers. On two shared cores the second
    // partner's creates cost the first partner's latency by themselves; the row is what the dead
    // receiver costs beyond that (CONTRACT §12: a dead receiver costs other receivers nothing).
    const live = await start('receiver-process.mjs');
    let besideLive;
    try {
      besideLive = await besideLoad(await otherPartner('live receiver', live.url));
    } finally {
      await live.stop();
    }
    const beside = await besideLoad(await otherPartner('dead receiver', dead.url));
    const deadRun = beside.run;
    const held = await dead.ask('stats');
    const counts = await Promise.all(replicas.map((r) => r.ask('in-flight')));
    const perReplica = counts.map((c) => c.most[dead.url] ?? 0);
    // Which replica sent the healthy receiver's deliveries: the one that made the event claims it first.
    const healthySent = counts.map((c) => c.sent[receiver.url] ?? 0);
    const worst = Math.max(beside.p50 / besideLive.p50, beside.p99 / besideLive.p99);
    report({
      id: 24,
      what: '#7 on two replicas of one PostgreSQL: latency beside another partner’s load to a dead receiver vs to one that answers (worse of p50, p99 ratios)',
      value: worst,
      target: 1.2,
      better: 'lower',
      unit: '×',
      detail:
        `${RATE} events/s split over both replicas (PostgreSQL on 2 cores creates ~300–500/s in all), ${DEAD_RATE}/s more to the dead receiver (${deadRun.non2xx} non-2xx); ` +
        `p50 ${alone.p50.toFixed(1)} alone, ${besideLive.p50.toFixed(1)} beside the answering receiver's load, ${beside.p50.toFixed(1)} beside the dead one's; p99 ${alone.p99.toFixed(1)}, ${besideLive.p99.toFixed(1)}, ${beside.p99.toFixed(1)} ms (${alone.count}, ${besideLive.count} and ${beside.count} of ${RATE * SECONDS} events; a create's own p50 ${alone.createP50}, ${besideLive.createP50}, ${beside.createP50} ms); ` +
        `dead receiver's attempts in flight at most ${held.most} at once (cap 64 across replicas), per replica at most ${perReplica.join(' and ')}; the healthy receiver's attempts (warm-up included) sent by replica ${healthySent.join('/')}`,
    });
  } finally {
    await dead.stop();
    await receiver.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    await pg.stop();
  }
}

/** `rate` creates/s for `duration` s, half through each replica (one paced autocannon process each). */
async function split(replicas, config, rate, duration) {
  const runs = await Promise.all(replicas.map((r) => load({ ...config(r), overallRate: rate / replicas.length, duration, connections: 8 })));
  return { non2xx: runs.reduce((s, r) => s + r.non2xx, 0), total: runs.reduce((s, r) => s + r.total, 0), createP50: Math.max(...runs.map((r) => r.p50)) };
}

/** The healthy partner's event-to-receipt latencies (arrival − envelope createdAt) over one measured run. */
async function measure(replicas, receiver) {
  await receiver.ask('reset');
  const run = await split(replicas, (r) => createLoad(r), RATE, SECONDS);
  await new Promise((r) => setTimeout(r, 500));
  const { arrivals } = await receiver.ask('stats');
  const latencies = arrivals
    .filter((a) => a[2] === 'invoice.created')
    .map((a) => a[1] - a[0])
    .sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  const m = { p50: at(0.5), p99: at(0.99), count: latencies.length, created: run.total, createP50: run.createP50 };
  console.log(
    `  #24: ${m.created} created in ${SECONDS} s (${RATE}/s asked; a create's own p50 ${run.createP50} ms), ${m.count} received; p50 ${m.p50} ms, p99 ${m.p99} ms`,
  );
  return m;
}
