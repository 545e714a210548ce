#!/usr/bin/env node
// A webhook receiver for the svc emulator (and the real service), with no dependencies.
//
//   WEBHOOK_SECRET=whsec_… PORT=3000 node webhook-receiver.mjs
//   svc webhook set --url http://localhost:3000/hooks --secret whsec_…
//   svc trigger invoice.paid
//
// It verifies X-Service-Signature over the raw body in constant time, rejects timestamps more than
// five minutes from its own clock, handles each event once (by the envelope id), and fulfils the
// order on invoice.paid only. Replace fulfil() with your own code, and `seen` with a table.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const SECRET = process.env.WEBHOOK_SECRET;
const PORT = Number(process.env.PORT ?? 3000);
const HOST = process.env.HOST ?? '127.0.0.1';
const PATH = process.env.WEBHOOK_PATH ?? '/hooks';
const TOLERANCE_SECONDS = 300;
const MAX_BODY_BYTES = 1024 * 1024;

if (!SECRET) {
  console.error('Set WEBHOOK_SECRET to the secret given to `svc webhook set` (or PUT /v1/partner/webhook).');
  process.exit(1);
}

/** Throws with a short reason unless `header` is a valid, fresh signature of `rawBody`. */
function verify(rawBody, header, secret, nowSeconds = Math.floor(Date.now() / 1000)) {
  if (typeof header !== 'string' || header === '') throw new Error('missing X-Service-Signature');
  let timestamp = NaN;
  const signatures = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    if (key === 't') timestamp = /^\d+$/.test(value) ? Number(value) : NaN;
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (!Number.isSafeInteger(timestamp)) throw new Error('malformed signature header: no t=<unix seconds>');
  if (signatures.length === 0) throw new Error('malformed signature header: no v1=<hex>');
  // HMAC-SHA256 of "<t>.<raw body>": the bytes as received, before any JSON parsing.
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  // timingSafeEqual compares in constant time (both are 32 bytes, checked by the pattern above).
  if (!signatures.some((candidate) => timingSafeEqual(candidate, expected))) throw new Error('signature mismatch');
  // The timestamp is signed too: only once the signature holds does its age mean anything.
  if (Math.abs(nowSeconds - timestamp) > TOLERANCE_SECONDS) throw new Error(`stale timestamp (${nowSeconds - timestamp} s old)`);
  return JSON.parse(rawBody.toString('utf8'));
}

/** Envelope ids already handled. Deliveries are at least once: the same event can come again. */
const seen = new Set();

function fulfil(data) {
  // Your business logic: mark the order data.referenceId paid, ship, send the receipt…
  console.log(`fulfilled invoice ${data.invoiceId} (${data.amountReceived} ${data.token ?? ''})`.trim());
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== PATH) {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    let event;
    try {
      event = verify(Buffer.concat(chunks), req.headers['x-service-signature'], SECRET);
    } catch (error) {
      console.log(`rejected: ${error.message}`);
      res.writeHead(400, { 'content-type': 'text/plain' }).end(error.message);
      return;
    }
    if (seen.has(event.id)) {
      console.log(`duplicate ${event.type} ${event.id}: already handled`);
      res.writeHead(200).end();
      return;
    }
    seen.add(event.id);
    console.log(`verified ${event.type} ${event.id}`);
    // Fulfil on invoice.paid only: partially_paid, overpaid, paid_late and the rest are for your records.
    if (event.type === 'invoice.paid') fulfil(event.data);
    // Answer quickly with a 2xx; anything else (or a timeout) makes the sender retry.
    res.writeHead(200).end();
  });
});

server.listen(PORT, HOST, () => {
  const { port } = server.address();
  console.log(`listening on http://${HOST}:${port}${PATH}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections(); // senders keep connections alive; do not wait for them
  });
}
