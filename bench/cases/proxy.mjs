import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { start } from '../lib/processes.mjs';
import { median } from './startup.mjs';

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'svc.js');

/**
 * #26: what `svc proxy` adds to a request (CONTRACT §13, issue 41): the same read, one at a time,
 * straight to the emulator and through the proxy in front of it, in alternation so that both see the
 * same moment of a shared machine; p50 through the proxy minus p50 direct. Emulator and proxy each
 * run in their own process (the proxy as `svc proxy` from dist/), the client here over kept-alive
 * connections. The detail gives both p50s and p99s.
 */
export async function proxyOverhead(report, { rounds = 2000, warmup = 200 } = {}) {
  const emulator = await start('emulator-process.mjs');
  const proxy = spawn(process.execPath, [BIN, 'proxy', '--upstream', emulator.url, '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const ready = JSON.parse(
      await new Promise((resolve, reject) => {
        readline.createInterface({ input: proxy.stdout }).once('line', resolve);
        proxy.once('exit', (code) => reject(new Error(`svc proxy exited with ${code} before it was ready`)));
      }),
    );
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const key = emulator.keys.test.partnerKey;
    const call = (base, method, route, body) =>
      new Promise((resolve, reject) => {
        const data = body === undefined ? undefined : JSON.stringify(body);
        const headers = {
          authorization: `Bearer ${key}`,
          ...(data ? { 'content-type': 'application/json', 'idempotency-key': `bench-${Math.random()}` } : {}),
        };
        const req = http.request(`${base}${route}`, { method, agent, headers }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => (res.statusCode < 300 ? resolve(JSON.parse(text)) : reject(new Error(`${method} ${route}: ${res.statusCode} ${text}`))));
        });
        req.on('error', reject);
        req.end(data);
      });
    const invoice = await call(emulator.url, 'POST', '/v1/partner/invoices', { merchantId: emulator.keys.test.merchantId, amount: '25.00' });
    const route = `/v1/partner/invoices/${invoice.id}`;
    const timed = async (base) => {
      const started = performance.now();
      await call(base, 'GET', route);
      return performance.now() - started;
    };
    const direct = [];
    const proxied = [];
    for (let i = 0; i < warmup + rounds; i++) {
      const d = await timed(emulator.url);
      const p = await timed(ready.baseUrl);
      if (i >= warmup) {
        direct.push(d);
        proxied.push(p);
      }
    }
    const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)];
    report({
      id: 26,
      what: '`svc proxy` in front of the emulator: a read’s p50 through it minus direct (ms)',
      value: median(proxied) - median(direct),
      target: 2,
      better: 'lower',
      unit: 'ms',
      detail: `p50 ${median(direct).toFixed(2)} ms direct, ${median(proxied).toFixed(2)} ms through the proxy; p99 ${p99(direct).toFixed(2)} / ${p99(proxied).toFixed(2)} ms; ${rounds} of each, alternating, one at a time`,
    });
    agent.destroy();
  } finally {
    proxy.kill('SIGTERM');
    await emulator.stop();
  }
}
