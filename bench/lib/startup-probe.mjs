// A fresh process as a user's test file would be: import the package, start an emulator on port 0
// with an in-memory database, create one invoice, stop. The request goes through node:http (not
// fetch, whose first use loads Node's own undici), so the figure is svc's, not the client's; and
// node:http comes as the floor script (floors/inprocess.cjs) gets it, not by an ES import, whose
// facade reads every export and loads that same undici (~10 ms).
// Prints the phases as one JSON line on stdout: {import, start, create, stop} in ms, timed with
// process.hrtime: the first performance.now() of a process loads Node's performance modules (~0.6
// ms), which the floor does not pay and svc does not need, so the probe's own timing would count them.
const http = process.getBuiltinModule('node:http');
const now = () => Number(process.hrtime.bigint()) / 1e6;

const t0 = now();
const { startEmulator } = await import('../../dist/index.js');
const t1 = now();
const emulator = await startEmulator({ port: 0, db: ':memory:' });
const t2 = now();
const status = await new Promise((resolve, reject) => {
  const body = JSON.stringify({ merchantId: emulator.keys.test.merchantId, amount: '25.00' });
  const req = http.request(
    `${emulator.url}/v1/partner/invoices`,
    {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${emulator.keys.test.partnerKey}`,
        'content-type': 'application/json',
        'idempotency-key': 'startup-probe',
        'content-length': Buffer.byteLength(body),
      },
    },
    (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    },
  );
  req.on('error', reject);
  req.end(body);
});
const t3 = now();
await emulator.stop();
const t4 = now();
if (status !== 201) {
  process.stderr.write(`create answered ${status}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ import: t1 - t0, start: t2 - t1, create: t3 - t2, stop: t4 - t3 })}\n`);
