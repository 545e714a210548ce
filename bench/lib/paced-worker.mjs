// An open-loop load at a steady rate, for latency at a given rate (#3). autocannon's rate limiter
// lets every connection send back to back until its quota for the second is used, then waits for
// the next second: "half the maximum rate" becomes full load for half of each second, and the
// figure measures a burst's queue, not latency at that rate. Here requests leave at even intervals
// and latency counts from when each one was due, so a stall also delays the requests behind it
// (no coordinated omission). argv[2]: {url, method, headers, body, rate, duration, connections,
// freshIdempotencyKey, paths (cycled through instead of url's path), latencies (print them all)};
// prints one JSON result on stdout.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const c = JSON.parse(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: c.connections ?? 32 });
const url = new URL(c.url);
const interval = 1000 / c.rate;
const warmupMs = 1000;
const latencies = [];
const statuses = {};
let errors = 0;
let outstanding = 0;
let sent = 0;

function send(dueAt, record) {
  outstanding++;
  const headers = { ...c.headers };
  if (c.freshIdempotencyKey) headers['idempotency-key'] = randomUUID();
  if (c.body) headers['content-length'] = Buffer.byteLength(c.body);
  const path = c.paths ? c.paths[sent++ % c.paths.length] : url.pathname;
  const req = http.request({ agent, host: url.hostname, port: url.port, path, method: c.method ?? 'GET', headers }, (res) => {
    res.resume();
    res.on('end', () => {
      outstanding--;
      if (!record) return;
      latencies.push(performance.now() - dueAt);
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    });
  });
  req.on('error', () => {
    outstanding--;
    errors++;
  });
  req.end(c.body);
}

const started = performance.now();
const endAt = started + warmupMs + (c.duration ?? 10) * 1000;
let next = started;
await new Promise((resolve) => {
  const tick = () => {
    const now = performance.now();
    while (next <= now && next < endAt) {
      send(next, next >= started + warmupMs);
      next += interval;
    }
    if (next >= endAt) return resolve();
    setTimeout(tick, Math.max(0, next - performance.now()));
  };
  tick();
});
while (outstanding > 0) await new Promise((r) => setTimeout(r, 5));
agent.destroy();

latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
const non2xx = Object.entries(statuses)
  .filter(([s]) => s < 200 || s >= 300)
  .reduce((n, [, v]) => n + v, 0);
process.stdout.write(
  JSON.stringify({
    rps: latencies.length / (c.duration ?? 10),
    total: latencies.length,
    p50: Math.round(at(0.5) * 10) / 10,
    p99: Math.round(at(0.99) * 10) / 10,
    non2xx,
    errors,
    statusCodes: statuses,
    ...(c.latencies ? { latencies: latencies.map((l) => Math.round(l * 10) / 10) } : {}),
  }),
);
