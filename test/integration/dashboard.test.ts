/**
 * The dashboard's server side (CONTRACT §10): the page and its reads are control plane (loopback
 * only, allowed hosts, no cross-site writes), the page loads nothing from elsewhere (its CSP says
 * so), an invoice's events come in order, and the change feed does not echo reads.
 * The page, its assets and headers, cross-site writes and the feed are raw HTTP; the reads go through the typed client.
 */
import http from 'node:http';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, expectRefused } from '../helpers/client-result.js';
import { ikey, request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.stop());

function externalIPv4(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) for (const info of list ?? []) if (info.family === 'IPv4' && !info.internal) return info.address;
  return undefined;
}

describe('/__emulator/ui/', () => {
  it('serves the page with a CSP that allows only the emulator itself', async () => {
    const res = await emu.call('GET', '/__emulator/ui/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(res.text).not.toMatch(/https?:\/\//);
    for (const asset of ['/assets/ui.js', '/assets/ui.css']) {
      const a = await emu.call('GET', asset);
      expect(a.status).toBe(200);
      expect(a.text).not.toMatch(/https?:\/\/(?!localhost)/);
    }
  });

  it('refuses foreign hosts and non-loopback clients', async () => {
    const foreign = await new Promise<number>((resolve) => {
      http.get(`${emu.url}/__emulator/ui/`, { headers: { host: 'rebound.evil.test' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
    });
    expect(foreign).toBe(403);
    const address = externalIPv4();
    if (!address) throw new Error('no non-internal IPv4 address on this machine');
    const open = await startTestEmulator({ host: '0.0.0.0', allowedHosts: [address] });
    try {
      const res = await request(`http://${address}:${open.port}`, 'GET', '/__emulator/ui/');
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('control_plane_forbidden');
    } finally {
      await open.stop();
    }
  });

  it('the writes the page makes are refused from another origin', async () => {
    const res = await emu.call('POST', '/__emulator/clock/advance', { body: { seconds: 1 }, headers: { origin: 'https://evil.test' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('cross_site_request');
    const own = await emu.call('POST', '/__emulator/clock/advance', { body: { seconds: 1 }, headers: { origin: emu.url } });
    expect(own.status).toBe(200);
  });
});

describe('the reads behind it', () => {
  it("GET /__emulator/invoices/{id}/events: the invoice's envelopes in order; 404 for another id", async () => {
    const api = emu.client.test;
    const inv = dataOf(await api.createInvoice({ idempotencyKey: ikey(), body: { amount: '3.00' } }), 201);
    await api.createTestPayment({ params: { id: inv.id }, body: {} });
    const res = dataOf(await api.listInvoiceEvents({ params: { id: inv.id } }));
    expect(res.data.map((e) => [e.data.sequence, e.type])).toEqual([
      [1, 'invoice.created'],
      [2, 'invoice.paid'],
    ]);
    expectRefused(await api.listInvoiceEvents({ params: { id: '00000000-0000-4000-8000-000000000000' } }), 404, 'invoice_not_found');
  });

  it('GET /__emulator/changes sends a change for a write and a delivery, never for a read', async () => {
    const kinds: string[] = [];
    const req = http.get(`${emu.url}/__emulator/changes`);
    await new Promise<void>((ready) =>
      req.on('response', (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (chunk.includes('event: ready')) ready();
          for (const m of chunk.matchAll(/event: change\ndata: (.*)\n/g)) kinds.push(JSON.parse(m[1]!).kind);
        });
      }),
    );
    await emu.client.test.listInvoices();
    await emu.client.test.getClock();
    expect(kinds).toEqual([]);
    await emu.client.test.advanceClock({ body: { seconds: 1 } });
    for (let i = 0; i < 50 && kinds.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    req.destroy();
    expect(kinds).toEqual(['request']);
  });
});
