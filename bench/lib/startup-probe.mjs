// A fresh process as a user's test file would be: import the package, start an emulator on port 0
// with an in-memory database, create one invoice, stop. The request goes through node:http (not
// fetch, whose first use loads Node's own undici), so the figure is svc's, not the client's; and
// node:http comes as the floor script (floors/inprocess.cjs) gets it, not by an ES import, whose
// facade reads every export and loads that same undici (~10 ms).
// Prints the phases as one JSON line on stdout: {import, start, create, stop} in ms.
const http = process.getBuiltinModule('node:http');

const t0 = performance.now();
const { startEmulator } = await import('../../dist/index.js');
const t1 = performance.now();
const emulator = await startEmulator({ port: 0, db: ':memory:' });
const t2 = performance.now();
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
const t3 = performance.now();
await emulator.stop();
const t4 = performance.now();
if (status !== 201) {
  process.stderr.write(`create answered ${status}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ import: t1 - t0, start: t2 - t1, create: t3 - t2, stop: t4 - t3 })}\n`);
