// autocannon in its own process, so the load generator never competes with the emulator's event
// loop. argv[2] is the JSON config; prints one JSON result on stdout.
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

const c = JSON.parse(process.argv[2]);
const options = {
  url: c.url,
  connections: c.connections ?? 32,
  duration: c.duration ?? 10,
  method: c.method ?? 'GET',
  headers: c.headers ?? {},
  body: c.body,
};
if (c.overallRate) options.overallRate = c.overallRate;
if (c.amount) {
  // A fixed number of requests instead of a duration.
  options.amount = c.amount;
  delete options.duration;
}
if (c.paths) {
  // Each request the next of these paths (on the url's origin): reads of many rows, not one.
  let n = 0;
  options.requests = [{ method: options.method, setupRequest: (req) => ({ ...req, path: c.paths[n++ % c.paths.length] }) }];
} else if (c.freshIdempotencyKey || c.bodies) {
  // A fresh Idempotency-Key per request (and optionally rotating bodies): every request creates.
  let n = 0;
  options.requests = [
    {
      method: options.method,
      setupRequest: (req) => {
        const headers = { ...req.headers };
        if (c.freshIdempotencyKey) headers['idempotency-key'] = randomUUID();
        const body = c.bodies ? c.bodies[n++ % c.bodies.length] : req.body;
        return { ...req, headers, body };
      },
    },
  ];
}
// The generator's own CPU during the load (user + system µs): what it took from the machine's cores.
const cpuBefore = process.cpuUsage();
const result = await autocannon(options);
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(
  JSON.stringify({
    rps: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: result.statusCodeStats,
    cpuMicros: cpu.user + cpu.system,
  }),
);
