// The floor of `svc invoices create --json` against a running emulator (#9): one POST over node:http
// to the URL and key in SVC_BASE_URL / SVC_PARTNER_KEY (SVC_MERCHANT_ID for the body), the answer
// printed. What that process cannot do without, and nothing else.
const http = require('node:http');

const body = JSON.stringify({ merchantId: process.env.SVC_MERCHANT_ID, amount: '1.00' });
const req = http.request(
  `${process.env.SVC_BASE_URL}/v1/partner/invoices`,
  {
    method: 'POST',
    headers: {
      authorization: `Bearer ${process.env.SVC_PARTNER_KEY}`,
      'content-type': 'application/json',
      'idempotency-key': `floor-${Math.random()}`,
      'content-length': Buffer.byteLength(body),
    },
  },
  (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (d) => (text += d));
    res.on('end', () => {
      process.stdout.write(`${text}\n`);
      process.exitCode = res.statusCode === 201 ? 0 : 1;
    });
  },
);
req.on('error', (error) => {
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
});
req.end(body);
