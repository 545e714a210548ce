/**
 * CONTRACT §8, defences against web pages, through raw HTTP (node:http, so that `Host`, `Origin` and
 * `Sec-Fetch-Site` are sent exactly as a browser would): the allowed-hosts check that stops DNS
 * rebinding, and the refusal of cross-site writes to the control plane, the checkout test panel
 * and the bind page.
 */
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

/** One request over node:http with exactly these headers (Host included). */
function raw(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }), ...headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** An HTTP/1.0 request without any Host header, as old tools send it. */
function http10(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.0\r\n\r\n`));
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

function expectError(res: Raw, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(Object.keys(res.body ?? {})).toEqual(['error']);
  expect(res.body.error.code, res.text).toBe(code);
  expect(res.headers['request-id']).toMatch(/^req_/);
}

function externalIPv4(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) if (info.family === 'IPv4' && !info.internal) return info.address;
  }
  return undefined;
}

let emu: TestEmulator;
let port: number;
let invoiceId: string;
let self: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  port = emu.port;
  self = `http://127.0.0.1:${port}`;
  const created = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '10.00' } });
  expect(created.status, created.text).toBe(201);
  invoiceId = created.body.id;
});
afterAll(() => emu?.stop());

const invoiceSurvives = async () => {
  const read = await emu.call('GET', `/v1/invoices/${invoiceId}`, { key: emu.keys.test.merchantKey });
  expect(read.status, 'the data survived').toBe(200);
};

describe('allowed hosts (DNS rebinding)', () => {
  it('a page rebound to 127.0.0.1 gets 403 host_not_allowed on every path, and learns nothing', async () => {
    const host = { host: `rebind.attacker.example:${port}` };
    const key = { ...host, authorization: `Bearer ${emu.keys.test.partnerKey}` };
    const cases: [string, string, Record<string, string>, string?][] = [
      ['GET', '/__emulator/keys', host],
      ['GET', '/__emulator/health', host],
      ['POST', '/__emulator/reset', host],
      ['GET', '/v1/partner/merchants', key],
      [
        'PUT',
        '/v1/partner/webhook',
        { ...key, 'content-type': 'application/json' },
        JSON.stringify({ url: 'http://127.0.0.1:6379/', secret: 'whsec_rebinding_attack_1' }),
      ],
      ['GET', `/checkout/${invoiceId}`, host],
      ['GET', '/assets/pages.css', host],
      ['GET', '/no/such/route', host],
      ['DELETE', '/v1/invoices', host],
    ];
    for (const [method, path, headers, body] of cases) {
      const res = await raw(port, method, path, headers, body);
      expectError(res, 403, 'host_not_allowed');
      expect(res.body.error.message).toContain('--allowed-host rebind.attacker.example');
      expect(res.body.error.message).toContain('allowedHosts');
      expect(res.text).not.toContain(emu.keys.test.partnerKey);
    }
    // Nothing was changed: no webhook configured, the invoice is still there.
    expect((await emu.call('GET', '/v1/partner/webhook', { key: emu.keys.test.partnerKey })).status).toBe(404);
    await invoiceSurvives();
  });

  it('serves loopback names and addresses, any port, and requests without a Host header', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'localhost',
      `LocalHost.:${port}`,
      `app.localhost:${port}`,
      '127.9.8.7',
      `[::1]:${port}`,
      '[::1]',
    ]) {
      const res = await raw(port, 'GET', '/__emulator/health', { host });
      expect(res.status, `${host}: ${res.text}`).toBe(200);
    }
    expect(await http10(port, '/__emulator/health')).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('refuses look-alikes of loopback names', async () => {
    for (const host of ['localhost.attacker.example', 'attacker-localhost', '127.0.0.1.nip.io', '0.0.0.0', '10.0.0.1', 'evil.example:80:80', '[::2]']) {
      expectError(await raw(port, 'GET', '/__emulator/health', { host }), 403, 'host_not_allowed');
    }
  });

  it('allowedHosts adds names (".name" with its subdomains); "all" lifts the check; the public URL host is allowed', async () => {
    const named = await startTestEmulator({ allowedHosts: ['My-Laptop.local', '.dev.test'], publicUrl: 'https://pay.example.com' });
    try {
      for (const host of ['my-laptop.local:4747', 'dev.test', 'api.dev.test:8080', 'pay.example.com', 'localhost']) {
        const res = await raw(named.port, 'GET', '/__emulator/health', { host });
        expect(res.status, `${host}: ${res.text}`).toBe(200);
      }
      for (const host of ['other.local', 'notdev.test', 'pay.example.com.evil.example']) {
        expectError(await raw(named.port, 'GET', '/__emulator/health', { host }), 403, 'host_not_allowed');
      }
    } finally {
      await named.stop();
    }
    const open = await startTestEmulator({ config: { allowedHosts: ['all'] } });
    try {
      expect((await raw(open.port, 'GET', '/__emulator/health', { host: 'anything.example' })).status).toBe(200);
    } finally {
      await open.stop();
    }
  });

  it('refuses a malformed allowedHosts entry at start', async () => {
    await expect(startTestEmulator({ allowedHosts: ['http://my-laptop.local/'] })).rejects.toThrow(/allowedHosts: "http:\/\/my-laptop.local\/" is not a host/);
  });

  it('a specific bound address is allowed; behind a wildcard bind, the LAN address needs allowedHosts', async () => {
    const address = externalIPv4();
    if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
    const bound = await startTestEmulator({ host: address });
    try {
      const res = await new Promise<number>((resolve, reject) => {
        http
          .get(
            {
              host: address,
              port: bound.port,
              path: '/v1/partner/merchants',
              headers: { authorization: `Bearer ${bound.keys.test.partnerKey}` },
              agent: false,
            },
            (r) => {
              r.resume();
              resolve(r.statusCode ?? 0);
            },
          )
          .on('error', reject);
      });
      expect(res).toBe(200);
    } finally {
      await bound.stop();
    }
    const wildcard = await startTestEmulator({ host: '0.0.0.0' });
    try {
      expectError(await raw(wildcard.port, 'GET', '/__emulator/health', { host: `${address}:${wildcard.port}` }), 403, 'host_not_allowed');
    } finally {
      await wildcard.stop();
    }
  });
});

describe('cross-site writes', () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  it('a cross-site form post to /__emulator/reset is 403 cross_site_request, and the data survives', async () => {
    const attempts: Record<string, string>[] = [
      { origin: 'http://attacker.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'http://attacker.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' },
      { origin: `http://127.0.0.1:${port + 1}` },
      { origin: 'null' },
      { origin: `https://127.0.0.1:${port}` },
    ];
    for (const headers of attempts) {
      const res = await raw(port, 'POST', '/__emulator/reset', { ...form, ...headers }, 'x=1');
      expectError(res, 403, 'cross_site_request');
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    await invoiceSurvives();
  });

  it('refuses cross-site writes to partners, merchant keys, the bind page and the checkout test panel', async () => {
    const evil = { origin: 'http://attacker.example', 'sec-fetch-site': 'cross-site' };
    const merchantId = emu.keys.test.merchantId;
    const counts = 'SELECT (SELECT COUNT(*) FROM partners) AS p, (SELECT COUNT(*) FROM api_keys) AS k';
    const before = await emu.query(counts);
    for (const path of [
      '/__emulator/partners',
      `/__emulator/merchants/${merchantId}/keys`,
      `/bind/${merchantId}/complete`,
      `/checkout/${invoiceId}/test/pay-full`,
    ]) {
      expectError(await raw(port, 'POST', path, { ...form, ...evil }, 'x=1'), 403, 'cross_site_request');
      expectError(await raw(port, 'POST', path, { 'content-type': 'application/json', ...evil }, '{}'), 403, 'cross_site_request');
    }
    expectError(
      await raw(port, 'PUT', `/__emulator/merchants/${merchantId}/chains`, { 'content-type': 'application/json', ...evil }, '{"networkIds":null}'),
      403,
      'cross_site_request',
    );
    expect(await emu.query(counts)).toEqual(before);
    const state = await emu.call('GET', `/checkout/${invoiceId}/state`);
    expect(state.body.status).toBe('CREATED');
  });

  it('the emulator’s own origin, and clients without Origin (curl, SDKs, the CLI), are served', async () => {
    const own = await raw(port, 'POST', '/__emulator/partners', { 'content-type': 'application/json', origin: self, 'sec-fetch-site': 'same-origin' }, '{}');
    expect(own.status, own.text).toBe(201);
    const byLocalhost = await raw(
      port,
      'POST',
      '/__emulator/partners',
      { 'content-type': 'application/json', host: `localhost:${port}`, origin: `http://localhost:${port}` },
      '{}',
    );
    expect(byLocalhost.status, byLocalhost.text).toBe(201);
    const typed = await raw(port, 'POST', '/__emulator/partners', { 'content-type': 'application/json', 'sec-fetch-site': 'none' }, '{}');
    expect(typed.status, typed.text).toBe(201);
    const curl = await raw(port, 'POST', `/bind/${emu.keys.test.merchantId}/complete`);
    expect(curl.status, curl.text).toBe(303);
    // Reads are not writes: a cross-site GET of a page is served (the page itself is not secret).
    const page = await raw(port, 'GET', `/checkout/${invoiceId}`, { origin: 'http://attacker.example', 'sec-fetch-site': 'cross-site' });
    expect(page.status).toBe(200);
  });

  it('the public base URL’s origin counts as the emulator’s own', async () => {
    const proxied = await startTestEmulator({ publicUrl: 'https://pay.example.com' });
    try {
      const res = await raw(
        proxied.port,
        'POST',
        '/__emulator/partners',
        { 'content-type': 'application/json', host: 'pay.example.com', origin: 'https://pay.example.com' },
        '{}',
      );
      expect(res.status, res.text).toBe(201);
    } finally {
      await proxied.stop();
    }
  });

  it('the API itself (keys in headers, which a cross-site form cannot send) is not subject to it', async () => {
    const res = await raw(
      port,
      'POST',
      '/v1/invoices',
      { 'content-type': 'application/json', authorization: `Bearer ${emu.keys.test.merchantKey}`, 'idempotency-key': ikey(), origin: 'http://localhost:3000' },
      '{"amount":"1.00"}',
    );
    expect(res.status, res.text).toBe(201);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends no CORS headers: a preflight gets none', async () => {
    const res = await raw(port, 'OPTIONS', '/__emulator/reset', {
      origin: 'http://attacker.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(res.status).toBe(405);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });
});
