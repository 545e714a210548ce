// Fills an emulator with invoices over HTTP, eight creates at a time on kept-alive connections: the
// setup of the in-process probes (reset-probe.mjs, snapshot-probe.mjs), not what they time.
import http from 'node:http';

/** `fill(count)` creates `count` invoices through `emulator`; keys are `<prefix>-<n>`. */
export function invoiceFiller(emulator, prefix) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  let n = 0;
  const create = () => {
    const body = JSON.stringify({ merchantId: emulator.keys.test.merchantId, amount: '25.00' });
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${emulator.url}/v1/partner/invoices`,
        {
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${emulator.keys.test.partnerKey}`,
            'content-type': 'application/json',
            'idempotency-key': `${prefix}-${n++}`,
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`create answered ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
  return {
    async fill(count) {
      for (let done = 0; done < count; done += 8) await Promise.all(Array.from({ length: Math.min(8, count - done) }, create));
    },
    close: () => agent.destroy(),
  };
}
