/**
 * CONTRACT §8 against many hostile requests at once (issue 10): thousands of requests whose `Host`
 * is a foreign name (random domains, look-alikes of loopback, LAN and public addresses) on every
 * kind of path, and thousands of cross-site writes (random origins, `null`, other local ports,
 * `Sec-Fetch-Site`) to the control plane, the checkout test panel and the bind page, as form posts,
 * `text/plain` and JSON, all in flight together with ordinary traffic.
 *
 * Checked: every foreign Host gets 403 `host_not_allowed` and every cross-site write 403
 * `cross_site_request`, in the contract's shape; the ordinary requests succeed; the database is
 * exactly as before apart from the ordinary requests' own rows. Counts are printed for the README.
 */
import fc from 'fast-check';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';
import { allRows, changedRows } from './lib/input-db.js';
import { burstAgent, httpRequest, type HttpRequest } from './lib/input-http.js';
import { derive, runSeed } from './lib/seeded-random.js';

const HOSTS = 2000;
const WRITES = 2000;
const ORDINARY = 200;

let emu: TestEmulator;
let invoiceId: string;
const agent = burstAgent();
const dir = tempDir('svc-rel-web-');
const seed = runSeed();

beforeAll(async () => {
  emu = await startTestEmulator({ db: path.join(dir, 'svc.db') });
  const created = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '10.00' } });
  expect(created.status, created.text).toBe(201);
  invoiceId = created.body.id;
});
afterAll(async () => {
  agent.destroy();
  await emu?.stop();
});

const LOOKALIKES = [
  'localhost.attacker.example',
  'localhost-attacker.example',
  '127.0.0.1.nip.io',
  '127.0.0.1.attacker.example',
  '0.0.0.0',
  '10.0.0.1',
  '192.168.1.20',
  '169.254.169.254',
  '[::2]',
  '[fe80::1]',
  '8.8.8.8',
  'attacker.example:80:80',
];

function foreignHosts(count: number): string[] {
  const random = fc.sample(fc.domain(), { numRuns: count, seed });
  const hosts = random.filter((h) => h !== 'localhost' && !h.endsWith('.localhost')).map((h, i) => (i % 3 === 0 ? `${h}:${emu.port}` : h));
  return [...LOOKALIKES, ...hosts].slice(0, count);
}

function foreignOrigins(count: number): Record<string, string>[] {
  const port = emu.port;
  const fixed: Record<string, string>[] = [
    { origin: 'null' },
    { origin: `http://127.0.0.1:${port + 1}` },
    { origin: `http://localhost:${port}` },
    { origin: `https://127.0.0.1:${port}` },
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site' },
    { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-site' },
  ];
  const random = fc.sample(fc.webUrl({ validSchemes: ['http', 'https'] }), { numRuns: count, seed }).map((url) => ({ origin: new URL(url).origin }));
  return [...fixed, ...random.filter((o) => o.origin !== `http://127.0.0.1:${port}`)].slice(0, count);
}

describe('hostile hosts and origins, in one burst with ordinary traffic', () => {
  it('refuses every foreign Host and every cross-site write, serves the rest, and changes nothing else', async () => {
    const before = allRows(emu.store.sqlite);
    const key = emu.keys.test.merchantKey;
    const merchantId = emu.keys.test.merchantId;
    const targets: Omit<HttpRequest, 'headers'>[] = [
      { method: 'GET', path: '/__emulator/keys' },
      { method: 'POST', path: '/__emulator/reset', body: 'x=1' },
      { method: 'GET', path: '/v1/invoices' },
      { method: 'GET', path: `/checkout/${invoiceId}` },
      { method: 'GET', path: '/assets/checkout.js' },
      { method: 'GET', path: '/nowhere' },
    ];
    const writes: Omit<HttpRequest, 'headers'>[] = [
      { method: 'POST', path: '/__emulator/reset' },
      { method: 'POST', path: '/__emulator/partners' },
      { method: 'POST', path: `/__emulator/merchants/${merchantId}/keys` },
      { method: 'PUT', path: `/__emulator/merchants/${merchantId}/chains` },
      { method: 'POST', path: '/__emulator/clock/advance' },
      { method: 'POST', path: `/bind/${merchantId}/complete` },
      { method: 'POST', path: `/checkout/${invoiceId}/test/pay-full` },
    ];
    const bodies = [
      { type: 'application/x-www-form-urlencoded', body: 'x=1' },
      { type: 'text/plain', body: '{"seconds":86400}' },
      { type: 'application/json', body: '{"networkIds":null,"seconds":86400}' },
    ];

    type Planned = { request: HttpRequest; expect: 'host_not_allowed' | 'cross_site_request' | 'ok' };
    const plan: Planned[] = [];
    foreignHosts(HOSTS).forEach((host, i) => {
      const t = targets[i % targets.length]!;
      const headers: Record<string, string> = { host, authorization: `Bearer ${key}` };
      if (t.body) headers['content-type'] = 'application/x-www-form-urlencoded';
      plan.push({ request: { ...t, headers }, expect: 'host_not_allowed' });
    });
    foreignOrigins(WRITES).forEach((origin, i) => {
      const w = writes[i % writes.length]!;
      const b = bodies[i % bodies.length]!;
      plan.push({ request: { ...w, headers: { 'content-type': b.type, ...origin }, body: b.body }, expect: 'cross_site_request' });
    });
    for (let i = 0; i < ORDINARY; i++) {
      plan.push({
        request: {
          method: 'POST',
          path: '/v1/invoices',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': ikey(), origin: 'http://localhost:3000' },
          body: '{"amount":"1.00"}',
        },
        expect: 'ok',
      });
    }
    // Shuffled (seeded), so ordinary requests are in flight among the hostile ones.
    const random = derive(seed, 'order');
    for (let i = plan.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [plan[i], plan[j]] = [plan[j]!, plan[i]!];
    }

    const problems: string[] = [];
    const tally = new Map<string, number>();
    await Promise.all(
      plan.map(async (p) => {
        const res = await httpRequest(emu.port, agent, p.request, 60_000);
        const code = res.status === 403 ? (JSON.parse(res.text) as { error: { code: string } }).error.code : String(res.status);
        tally.set(code, (tally.get(code) ?? 0) + 1);
        const ok = p.expect === 'ok' ? res.status === 201 : res.status === 403 && code === p.expect;
        if (!ok) problems.push(`${p.request.method} ${p.request.path} ${JSON.stringify(p.request.headers)} → ${res.status} ${res.text.slice(0, 160)}`);
        if (Object.keys(res.headers).some((h) => h.startsWith('access-control-'))) problems.push(`${p.request.path}: CORS headers sent`);
      }),
    );
    expect(problems.slice(0, 10)).toEqual([]);

    const after = allRows(emu.store.sqlite);
    expect(changedRows(before, after)).toEqual([]);
    const invoices = after.get('invoices')!.size - before.get('invoices')!.size;
    expect(invoices).toBe(ORDINARY);
    expect(after.get('partners')!.size).toBe(before.get('partners')!.size);
    expect(after.get('api_keys')!.size).toBe(before.get('api_keys')!.size);
    console.log(`web attacks (seed ${seed}): ${plan.length} requests; ${[...tally].map(([c, n]) => `${c}×${n}`).join(', ')}`);
  });
});
