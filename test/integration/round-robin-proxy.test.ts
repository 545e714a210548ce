/**
 * The round-robin proxy of the cluster tests (test/helpers/round-robin-proxy.ts), and what two
 * replicas behind a balancer need from svc (CONTRACT §12, issue 28): `publicUrl` puts the balancer's
 * address in `checkoutUrl`; the control token passes through the balancer to replicas that see it as
 * a non-loopback client. Two real emulators (separate SQLite databases here: the shared state of
 * PostgreSQL replicas is the cluster suite's subject), real HTTP through the proxy.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/typed.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../helpers/round-robin-proxy.js';

const TOKEN = 'cluster-token-0123456789';
// Pinned, so that either replica takes the same keys (as replicas on one database do).
const KEYS = { test: { partnerKey: `pt_test_${'P'.repeat(32)}`, merchantKey: `test_${'M'.repeat(32)}` } };
const address = Object.values(os.networkInterfaces())
  .flat()
  .find((info) => info?.family === 'IPv4' && !info.internal)?.address;

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
async function proxy(upstreams: string[] = []): Promise<RoundRobinProxy> {
  const p = await startRoundRobinProxy(upstreams);
  cleanups.push(() => p.stop());
  return p;
}
async function replicas(publicUrl: string, options: Parameters<typeof startTestEmulator>[0] = {}): Promise<TestEmulator[]> {
  const started = await Promise.all([0, 1].map(() => startTestEmulator({ ...options, config: { keys: KEYS, publicUrl, ...options.config } })));
  for (const emu of started) cleanups.push(() => emu.stop());
  return started;
}
const local = (emu: TestEmulator) => `http://127.0.0.1:${emu.port}`;

/** A plain server that records each request's headers and answers 200 `{}`. */
async function recorder() {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('round-robin proxy', () => {
  it('takes turns over two replicas; a create through it has its checkoutUrl on the proxy', async () => {
    const lb = await proxy();
    const [a, b] = await replicas(lb.url);
    // Their bound address: with `publicUrl`, an emulator's `url` is the proxy's own.
    lb.upstreams.push(local(a!), local(b!));
    const client = createClient({ baseUrl: lb.url, merchantKey: KEYS.test.merchantKey });
    for (const n of [1, 2, 3, 4]) {
      const created = await client.createInvoice({ body: { amount: '5.00', referenceId: `order-${n}` }, idempotencyKey: ikey() });
      expect(created.ok, JSON.stringify(created)).toBe(true);
      if (created.ok) {
        expect(created.data.checkoutUrl).toBe(`${lb.url}/checkout/${created.data.id}`);
        expect(created.data.referenceId).toBe(`order-${n}`);
      }
    }
    expect(lb.hits).toEqual([2, 2]);
    // Each replica holds what was created through it: the proxy alternated.
    for (const emu of [a!, b!]) {
      const listed = await emu.client.test.listInvoices();
      expect(listed.ok && listed.data.data.map((i) => i.referenceId).sort()).toEqual(emu === a ? ['order-1', 'order-3'] : ['order-2', 'order-4']);
    }
  });

  it('keeps a server-sent event stream flowing', async () => {
    const lb = await proxy();
    const [a] = await replicas(lb.url);
    lb.upstreams.push(local(a!));
    const controller = new AbortController();
    cleanups.push(() => controller.abort());
    const res = await fetch(createClient({ baseUrl: lb.url }).url('streamChanges'), { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const until = async (what: string) => {
      while (!text.includes(what)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before "${what}": ${text}`);
        text += value;
      }
    };
    await until('event: ready');
    // A write on the replica after the stream opened arrives through the open stream.
    await a!.client.test.createInvoice({ body: { amount: '1.00' }, idempotencyKey: ikey() });
    await until('event: change');
  });

  it("forwards the client's address in X-Forwarded-For, and the request's headers and body", async () => {
    const rx = await recorder();
    const lb = await proxy([rx.url]);
    await fetch(`${lb.url}/v1/invoices`, { method: 'POST', headers: { authorization: 'Bearer x', 'content-type': 'application/json' }, body: '{}' });
    await fetch(`${lb.url}/v1/invoices`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(rx.seen.map((h) => h['x-forwarded-for'])).toEqual(['127.0.0.1', '203.0.113.7, 127.0.0.1']);
    expect(rx.seen[0]).toMatchObject({ authorization: 'Bearer x', 'content-length': '2', host: new URL(lb.url).host });
  });

  it('answers 502 in the error shape when the upstream is down, and goes on with the next', async () => {
    const rx = await recorder();
    // A port that refuses connections: a server's, closed again.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const lb = await proxy([downUrl, rx.url]);
    const down = await fetch(`${lb.url}/__emulator/health`);
    expect(down.status).toBe(502);
    expect(((await down.json()) as { error: { code: string } }).error.code).toBe('bad_gateway');
    expect((await fetch(`${lb.url}/__emulator/health`)).status).toBe(200);
  });

  it('passes the control token through to replicas that see the proxy as a non-loopback client', async () => {
    if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
    const lb = await proxy();
    const [a, b] = await replicas(lb.url, { host: '0.0.0.0', allowedHosts: [address], config: { controlToken: TOKEN } });
    // Through this machine's external address: the replicas see the proxy's connections as non-loopback.
    lb.upstreams.push(`http://${address}:${a!.port}`, `http://${address}:${b!.port}`);
    const withToken = createClient({ baseUrl: lb.url, controlToken: TOKEN });
    const without = createClient({ baseUrl: lb.url });
    // Each replica in turn: refused without the token, then served with it.
    for (const _ of [a, b]) {
      const refused = await without.getClock();
      expect(refused.ok ? 200 : [refused.status, refused.error.code]).toEqual([403, 'control_plane_forbidden']);
    }
    for (const _ of [a, b]) expect((await withToken.getClock()).ok).toBe(true);
    expect(lb.hits).toEqual([2, 2]);
  });
});
