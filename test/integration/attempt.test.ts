/**
 * One delivery attempt against real local receivers (real sockets, real undici): statuses,
 * redirects, timeouts, connection failures, body capping, byte-exact bodies, concurrency isolation,
 * and the connect-time SSRF guard with an injected resolver.
 */
import { createServer, type Server } from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAttempter, type AttemptRequest } from '../../src/webhooks/attempt.js';
import { AddressBlockedError, guardedLookup, type LookupFn } from '../../src/webhooks/ssrf.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const HEADERS = { 'Content-Type': 'application/json', 'User-Agent': 'svc-emulator/test' };
const attempter = createAttempter();
const receivers: Receiver[] = [];

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

function req(url: string, overrides: Partial<AttemptRequest> = {}): AttemptRequest {
  return { url, body: '{"id":"evt_1"}', headers: HEADERS, timeoutMs: 2000, guard: 'none', ...overrides };
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => attempter.close());

describe('responses', () => {
  it.each([200, 204])('%i is ok and keeps the body', async (status) => {
    const r = await receiver({ status, body: status === 204 ? '' : 'thanks' });
    const res = await attempter.attempt(req(`${r.url}/hook`));
    expect(res).toMatchObject({ ok: true, responseStatus: status, responseBody: status === 204 ? '' : 'thanks', error: null, errorKind: null });
    expect(res.durationMs).toBeGreaterThan(0);
  });

  it.each([301, 302, 307, 308] as const)('%i is a redirect that is not followed', async (status) => {
    const target = await receiver();
    const r = await receiver({ redirect: `${target.url}/elsewhere`, status });
    const res = await attempter.attempt(req(`${r.url}/hook`));
    expect(res).toMatchObject({ ok: false, responseStatus: status, errorKind: 'redirect' });
    expect(res.error).toBe(`redirect: ${status} to ${target.url}/elsewhere (redirects are not followed)`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(target.requests).toHaveLength(0);
  });

  it.each([
    [400, 'Bad Request'],
    [404, 'Not Found'],
    [500, 'Internal Server Error'],
    [503, 'Service Unavailable'],
  ])('%i is http_status with the body kept', async (status, phrase) => {
    const r = await receiver({ status, body: `{"why":"status ${status}"}` });
    const res = await attempter.attempt(req(r.url));
    expect(res).toMatchObject({ ok: false, responseStatus: status, responseBody: `{"why":"status ${status}"}`, errorKind: 'http_status' });
    expect(res.error).toBe(`http_status: ${status} ${phrase}`);
  });

  it('keeps only 4096 bytes of a 1 MiB body and finishes quickly', async () => {
    const r = await receiver({ body: 'x'.repeat(1 << 20) });
    const res = await attempter.attempt(req(r.url));
    expect(res).toMatchObject({ ok: true, responseStatus: 200 });
    expect(res.responseBody).toBe('x'.repeat(4096));
    expect(res.durationMs).toBeLessThan(1000);
  });

  it('sends the exact body bytes and every header', async () => {
    const r = await receiver();
    const body = '{"note":"café 💸 ✓","amount":"1.50","nested":{"a":[1,2,3]}}  ';
    const headers = { ...HEADERS, 'X-Service-Signature': 't=1700000000,v1=abc', 'X-Tenant': 'acme' };
    const res = await attempter.attempt(req(`${r.url}/hooks/in?src=svc`, { body, headers }));
    expect(res.ok).toBe(true);
    const [got] = await r.waitFor(1);
    expect(got).toMatchObject({ method: 'POST', path: '/hooks/in?src=svc', rawBody: body });
    expect(got!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'svc-emulator/test',
      'x-service-signature': 't=1700000000,v1=abc',
      'x-tenant': 'acme',
      'content-length': String(Buffer.byteLength(body)),
    });
  });

  it('handles 200 concurrent attempts to one receiver', async () => {
    const r = await receiver((_req, n) => ({ body: `#${n}` }));
    const results = await Promise.all(Array.from({ length: 200 }, () => attempter.attempt(req(r.url))));
    expect(results.filter((x) => x.ok)).toHaveLength(200);
    expect(new Set(results.map((x) => x.responseBody)).size).toBe(200);
    expect(r.requests).toHaveLength(200);
  });
});

describe('failures', () => {
  it('times out on a receiver that never answers', async () => {
    const r = await receiver('hang');
    const res = await attempter.attempt(req(r.url, { timeoutMs: 300 }));
    expect(res).toMatchObject({ ok: false, responseStatus: null, responseBody: null, errorKind: 'timeout' });
    expect(res.error).toBe('timeout: no response within 300 ms');
    expect(res.durationMs).toBeGreaterThanOrEqual(290);
    expect(res.durationMs).toBeLessThan(1000);
  });

  it('times out on a receiver that sends headers and never finishes the body', async () => {
    const r = await receiver('stall-body');
    const res = await attempter.attempt(req(r.url, { timeoutMs: 300 }));
    expect(res).toMatchObject({ ok: false, responseStatus: 200, errorKind: 'timeout' });
    expect(res.responseBody).toBe('partial body, the rest never comes');
    expect(res.error).toBe('timeout: response body not complete within 300 ms (status 200)');
    expect(res.durationMs).toBeLessThan(1000);
  });

  it('reports a refused connection', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const res = await attempter.attempt(req(`http://127.0.0.1:${port}/`));
    expect(res).toMatchObject({ ok: false, responseStatus: null, errorKind: 'connection_refused', error: `connection_refused: 127.0.0.1:${port}` });
  });

  it('reports a reset connection', async () => {
    const r = await receiver('reset');
    const res = await attempter.attempt(req(r.url));
    expect(res).toMatchObject({ ok: false, responseStatus: null, errorKind: 'connection_reset', error: 'connection_reset: the connection was reset' });
  });

  it('reports a name that does not resolve', async () => {
    const res = await attempter.attempt(req('http://nope.invalid/', { timeoutMs: 5000 }));
    expect(res).toMatchObject({ ok: false, errorKind: 'dns_error' });
    expect(res.error).toMatch(/^dns_error: cannot resolve nope\.invalid/);
  });

  it.each(['not a url', 'ftp://example.com/x'])('reports %j as invalid_url', async (url) => {
    const res = await attempter.attempt(req(url));
    expect(res).toMatchObject({ ok: false, responseStatus: null, errorKind: 'invalid_url' });
  });

  it('a slow receiver does not delay attempts to another one', async () => {
    const slow = await receiver('hang');
    const fast = await receiver();
    const pending = Array.from({ length: 100 }, () => attempter.attempt(req(slow.url, { timeoutMs: 2000 })));
    await slow.waitFor(1);
    const started = performance.now();
    const quick = await Promise.all(Array.from({ length: 50 }, () => attempter.attempt(req(fast.url))));
    const elapsed = performance.now() - started;
    expect(quick.every((x) => x.ok)).toBe(true);
    expect(elapsed).toBeLessThan(1000);
    // The slow origin holds at most maxConnectionsPerOrigin (32) sockets; the rest wait in its queue.
    expect(slow.requests.length).toBeLessThanOrEqual(32);
    const timedOut = await Promise.all(pending);
    expect(timedOut.every((x) => x.errorKind === 'timeout')).toBe(true);
  });

  it('bounds the connections per origin', async () => {
    const small = createAttempter({ maxConnectionsPerOrigin: 4 });
    const r = await receiver('hang');
    const pending = Array.from({ length: 10 }, () => small.attempt(req(r.url, { timeoutMs: 500 })));
    await r.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(r.requests).toHaveLength(4);
    await Promise.all(pending);
    await small.close();
  });
});

describe('close', () => {
  it('ends running attempts at once instead of waiting for their timeouts', async () => {
    const own = createAttempter();
    const r = await receiver('hang');
    // A timeout far beyond the test's: only close() can end this attempt before the test times out
    // (no elapsed-time bound that a loaded machine exceeds, issue 23).
    const pending = own.attempt(req(r.url, { timeoutMs: 3_600_000 }));
    await r.waitFor(1);
    await own.close();
    const res = await pending;
    expect(res).toMatchObject({ ok: false, errorKind: 'network_error', error: 'network_error: the attempter was closed' });
    // Still no throw after close.
    expect((await own.attempt(req(r.url))).errorKind).toBe('network_error');
  });
});

describe('SSRF guard (public-only)', () => {
  let r: Receiver;
  let answers: Record<string, string[]> = {};
  const lookup: LookupFn = async (hostname) => {
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  const guarded = createAttempter({ lookup });
  beforeAll(async () => {
    r = await startReceiver();
  });
  afterAll(async () => {
    await guarded.close();
    await r.close();
  });

  it('refuses a name that resolves to loopback, and the receiver gets nothing', async () => {
    answers = { 'rebind.example.com': ['127.0.0.1'] };
    const res = await guarded.attempt(req(`http://rebind.example.com:${r.port}/`, { guard: 'public-only' }));
    expect(res).toMatchObject({ ok: false, responseStatus: null, errorKind: 'address_blocked' });
    expect(res.error).toBe('address_blocked: rebind.example.com resolves to 127.0.0.1 (loopback), not a public address');
    expect(r.requests).toHaveLength(0);
  });

  it('connects through the same lookup when unguarded', async () => {
    answers = { 'rebind.example.com': ['127.0.0.1'] };
    const res = await guarded.attempt(req(`http://rebind.example.com:${r.port}/`, { guard: 'none' }));
    expect(res).toMatchObject({ ok: true, responseStatus: 200 });
    expect(r.requests.at(-1)?.headers.host).toBe(`rebind.example.com:${r.port}`);
  });

  it.each([
    [['::ffff:127.0.0.1'], 'loopback'],
    [['169.254.169.254'], 'metadata'],
    [['10.0.0.1'], 'private'],
    [['100.64.0.1'], 'cgnat'],
    [['::1'], 'loopback'],
    [['fd00::1'], 'unique-local'],
    [['93.184.215.14', '10.0.0.1'], 'private'],
    [['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '::1'], 'loopback'],
  ])('refuses an answer of %j (%s)', async (addresses, range) => {
    answers = { 'hooks.example.com': addresses };
    const before = r.requests.length;
    const res = await guarded.attempt(req(`http://hooks.example.com:${r.port}/`, { guard: 'public-only' }));
    expect(res.errorKind).toBe('address_blocked');
    expect(res.error).toContain(`(${range}), not a public address`);
    expect(r.requests).toHaveLength(before);
  });

  it.each(['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]'])('refuses the IP literal URL host %s', async (host) => {
    const before = r.requests.length;
    const res = await guarded.attempt(req(`http://${host}:${r.port}/`, { guard: 'public-only' }));
    expect(res).toMatchObject({ errorKind: 'address_blocked' });
    expect(res.error).toMatch(/^address_blocked: .* \(loopback\) is not a public address$/);
    expect(r.requests).toHaveLength(before);
  });
});

describe('guardedLookup', () => {
  type Outcome = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };
  const call = (resolve: LookupFn, hostname: string, options: { all?: boolean; family?: number }) =>
    new Promise<Outcome>((done) => guardedLookup(resolve)(hostname, options, (err, address, family) => done({ err, address, family })));
  const fixed =
    (addresses: string[]): LookupFn =>
    async () =>
      addresses;

  it('answers with an array when options.all is true', async () => {
    const out = await call(fixed(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']), 'example.com', { all: true });
    expect(out.err).toBeNull();
    expect(out.address).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
  });

  it('answers with (address, family) otherwise, honouring options.family', async () => {
    const resolve = fixed(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
    expect(await call(resolve, 'example.com', {})).toEqual({ err: null, address: '93.184.215.14', family: 4 });
    expect(await call(resolve, 'example.com', { family: 6 })).toEqual({ err: null, address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 });
    const none = await call(fixed(['93.184.215.14']), 'example.com', { family: 6 });
    expect(none.err?.code).toBe('ENOTFOUND');
  });

  it('refuses with AddressBlockedError in both conventions', async () => {
    for (const all of [true, false]) {
      const out = await call(fixed(['93.184.215.14', '192.168.1.10']), 'mixed.example.com', { all });
      expect(out.err).toBeInstanceOf(AddressBlockedError);
      expect(out.err).toMatchObject({ code: 'ESVC_ADDRESS_BLOCKED', hostname: 'mixed.example.com', address: '192.168.1.10', range: 'private' });
    }
  });

  it('checks IP literals without resolving them', async () => {
    const never: LookupFn = async () => {
      throw new Error('must not resolve a literal');
    };
    expect((await call(never, '10.1.2.3', {})).err).toMatchObject({ code: 'ESVC_ADDRESS_BLOCKED', range: 'private' });
    expect(await call(never, '93.184.215.14', {})).toEqual({ err: null, address: '93.184.215.14', family: 4 });
  });

  it('passes resolver errors through', async () => {
    const failing: LookupFn = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND x.example'), { code: 'ENOTFOUND' });
    };
    expect((await call(failing, 'x.example', { all: true })).err?.code).toBe('ENOTFOUND');
  });
});
