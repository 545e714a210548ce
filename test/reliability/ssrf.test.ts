/**
 * SSRF for live webhooks (issue 7, reliability suite; CONTRACT §5), against a real emulator (port 0,
 * a SQLite file on disk).
 *
 * Saving: `PUT /v1/partner/webhook` with a live key refuses, with 400 `webhook_url_not_allowed` on
 * `url`, every IP literal in every notation (dotted, decimal, octal, hex, short, percent-encoded,
 * full-width, IPv6, IPv4-mapped, NAT64, 6to4), loopback, private, CGNAT, link-local and metadata
 * addresses, localhost and its subdomains, `.internal`/`.local`, tunnel domains, plain http and
 * credentials; and nothing is saved (404 before any configuration, the previous one after). The same
 * URLs are accepted with a test key, so the refusals are the live rule at work, not bad URLs.
 *
 * Delivering: a live webhook on a public-looking name whose DNS answer (the emulator's injected
 * resolver) is a loopback, private, link-local, CGNAT, metadata, unique-local, IPv4-mapped or NAT64
 * address, this machine's own addresses, or a mix of public and private: every attempt (first,
 * scheduled retry, manual resend) fails `address_blocked:` naming the address, and raw TCP listeners
 * on that port on every local address see no connection. The same names with a test key (no guard)
 * do reach those listeners, which shows the tripwires work.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import { classifyIp, parseIp } from '../../src/domain/ip.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';
import { rowCounts } from './lib/input-db.js';
import { startTripwires, type Tripwires } from './lib/ssrf-listeners.js';
import { ok } from '../helpers/api-response.js';

const SECRET = 'whsec_ssrf_reliability_0123456789';
const dir = tempDir('svc-rel-ssrf-');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

// ---------------------------------------------------------------------------------------------

/** Live webhook URLs that must be refused, grouped by why. Every one is a valid absolute http(s) URL. */
const REFUSED: Record<string, string[]> = {
  'IPv4, dotted': [
    'https://127.0.0.1/hook',
    'https://127.0.0.1:8443/hook',
    'https://127.255.255.254/hook',
    'https://0.0.0.0/hook',
    'https://127.0.0.1./hook',
    'https://8.8.8.8/hook', // public, but an IP literal all the same
    'https://93.184.215.14/hook',
  ],
  'IPv4, decimal': ['https://2130706433/hook', 'http://2130706433/hook', 'https://2852039166/latest/meta-data/', 'https://167772161/hook', 'https://0/hook'],
  'IPv4, octal': [
    'https://0177.0.0.1/hook',
    'https://0177.1/hook',
    'https://00000177.0.0.01/hook',
    'https://012.0.0.1/hook',
    'https://0251.0376.0251.0376/latest/meta-data/',
  ],
  'IPv4, hex': [
    'https://0x7f000001/hook',
    'https://0x7f.0.0.1/hook',
    'https://0x7F.0x0.0x0.0x1/hook',
    'https://0xa9fea9fe/latest/meta-data/',
    'https://0x64400001/hook',
  ],
  'IPv4, short forms': ['https://127.1/hook', 'https://127.0.1/hook', 'https://10.1/hook', 'https://192.168.257/hook'],
  'IPv4, other spellings': [
    'https://%31%32%37.0.0.1/hook',
    'https://１２７.０.０.１/hook',
    'https://127。0。0。1/hook',
    'https://0x7f.1/hook',
    'https://127.0.0.0x1/hook',
  ],
  IPv6: [
    'https://[::1]/hook',
    'https://[0:0:0:0:0:0:0:1]/hook',
    'https://[0000:0000:0000:0000:0000:0000:0000:0001]:8443/hook',
    'https://[::]/hook',
    'https://[fe80::1]/hook',
    'https://[fc00::1]/hook',
    'https://[fd00::2]/hook',
    'https://[2606:4700:4700::1111]/hook', // public, but an IP literal
  ],
  'IPv4-mapped and embedded IPv6': [
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://[::ffff:169.254.169.254]/hook',
    'https://[::ffff:a9fe:a9fe]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://[::127.0.0.1]/hook',
    'https://[64:ff9b::10.0.0.1]/hook', // NAT64 with a private address inside
    'https://[64:ff9b::a00:1]/hook',
    'https://[64:ff9b::7f00:1]/hook',
    'https://[64:ff9b:1::c0a8:101]/hook',
    'https://[2002:7f00:1::]/hook', // 6to4 of 127.0.0.1
    'https://[::ffff:0:7f00:1]/hook', // SIIT-translated 127.0.0.1
  ],
  'CGNAT 100.64.0.0/10': ['https://100.64.0.1/hook', 'https://100.127.255.254/hook', 'https://100.100.1.1/hook'],
  'link-local 169.254.0.0/16': ['https://169.254.1.1/hook', 'https://169.254.255.254/hook'],
  'metadata endpoints': [
    'https://169.254.169.254/latest/meta-data/',
    'https://169.254.170.2/v2/credentials',
    'https://[fd00:ec2::254]/latest/meta-data/',
    'https://100.100.100.200/latest/meta-data/',
    'https://192.0.0.192/opc/v2/instance/',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://metadata/computeMetadata/v1/',
  ],
  'private ranges': [
    'https://10.0.0.1/hook',
    'https://10.255.255.255/hook',
    'https://172.16.0.1/hook',
    'https://172.31.255.255/hook',
    'https://192.168.1.1/hook',
    'https://192.0.2.2/hook',
  ],
  localhost: [
    'https://localhost/hook',
    'https://LOCALHOST/hook',
    'https://localhost./hook',
    'https://localhost:8443/hook',
    'https://api.localhost/hook',
    'https://a.b.localhost/hook',
    'https://localhost。/hook',
    'https://ＬＯＣＡＬＨＯＳＴ/hook', // full-width, mapped to localhost by IDNA
    'https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/hook',
    'https://loc%61lhost/hook',
  ],
  '.internal and .local': [
    'https://host.docker.internal/hook',
    'https://METADATA.GOOGLE.INTERNAL./computeMetadata/v1/',
    'https://svc.internal/hook',
    'https://printer.local/hook',
    'https://my-mac.local./hook',
    'https://web.default.svc.cluster.local/hook',
    'https://intranet/hook',
  ],
  'tunnel domains': [
    'https://abc.trycloudflare.com/hook',
    'https://ABC.TryCloudflare.com./hook',
    'https://x.ngrok.io/hook',
    'https://x.ngrok-free.app/hook',
    'https://x.ngrok.app/hook',
    'https://x.loca.lt/hook',
    'https://x.localhost.run/hook',
    'https://x.serveo.net/hook',
    'https://x.TRYCLOUDFLARE.com/hook',
  ],
  'http, not https': ['http://hooks.example.com/hook', 'HTTP://hooks.example.com/hook', 'http://localhost:3000/hook'],
  'credentials in the URL': [
    'https://user:pass@hooks.example.com/hook',
    'https://user@hooks.example.com/hook',
    'https://:pass@hooks.example.com/hook',
    'https://user:@hooks.example.com/hook',
  ],
  'a public name in front of a private host': [
    'https://hooks.example.com@127.0.0.1/hook', // the "host" is the user name
    'https://hooks.example.com:443@localhost/hook',
    'https://127.0.0.1\\@hooks.example.com/hook', // the backslash ends the host
  ],
};
const ALL_REFUSED = Object.entries(REFUSED).flatMap(([group, urls]) => urls.map((url) => ({ group, url })));

describe('saving a live webhook URL', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ db: path.join(dir, 'save.db') });
  });
  afterAll(async () => {
    await emu?.stop();
  });

  async function refused(key: string, url: string, body: Record<string, unknown>): Promise<string | null> {
    const res = await emu.call('PUT', '/v1/partner/webhook', { key, body: { url, ...body } });
    const e = res.body?.error;
    if (res.status === 400 && e?.code === 'webhook_url_not_allowed' && e.param === 'url' && typeof e.message === 'string' && res.headers.get('request-id'))
      return null;
    return `${url}: ${res.status} ${res.text}`;
  }

  it('refuses IP literals in every notation and every non-public host, and saves nothing', async () => {
    const { live } = emu.keys;
    const db = emu.store.sqlite;
    expect(ALL_REFUSED.length).toBeGreaterThan(80);

    // Before any configuration: every refusal leaves none (404), whatever else the body says.
    const first: string[] = [];
    for (const { url } of ALL_REFUSED) {
      const problem = await refused(live.partnerKey, url, { secret: SECRET, enabled: true });
      if (problem) first.push(problem);
    }
    expect(first, 'live URLs that were not refused (no configuration yet)').toEqual([]);
    const none = await emu.call('GET', '/v1/partner/webhook', { key: live.partnerKey });
    expect(none.status, none.text).toBe(404);
    expect(none.body.error.code).toBe('webhook_not_configured');
    expect(rowCounts(db).webhook_configs).toBe(0);

    // A public name is accepted: the rule is not refusing everything.
    const good = 'https://hooks.example.com/svc';
    const saved = ok(
      await emu.call('PUT', '/v1/partner/webhook', { key: live.partnerKey, body: { url: good, secret: SECRET, customHeaders: { 'X-Env': 'live' } } }),
    );
    expect(saved).toMatchObject({ url: good, environment: 'live', enabled: true });
    const row = JSON.stringify(db.prepare('SELECT * FROM webhook_configs').all());

    // With a configuration: each refusal leaves it exactly as it was (URL, secret, headers, enabled).
    const second: string[] = [];
    for (const { url } of ALL_REFUSED) {
      const problem = await refused(live.partnerKey, url, { secret: 'another-secret-0123456789', enabled: false, customHeaders: {} });
      if (problem) second.push(problem);
      const now = ok(await emu.call('GET', '/v1/partner/webhook', { key: live.partnerKey }));
      if (now.url !== good || now.enabled !== true) second.push(`${url}: the configuration became ${JSON.stringify(now)}`);
    }
    expect(second, 'live URLs that were not refused, or changed the configuration').toEqual([]);
    expect(JSON.stringify(db.prepare('SELECT * FROM webhook_configs').all())).toBe(row);

    // The very same URLs are fine for test, where any http(s) host is allowed (CONTRACT §5).
    const testProblems: string[] = [];
    for (const { url } of ALL_REFUSED) {
      const res = await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url, secret: SECRET, enabled: false } });
      if (res.status !== 200 || res.body.url !== url) testProblems.push(`${url}: ${res.status} ${res.text}`);
    }
    expect(testProblems, 'URLs the test environment refused').toEqual([]);
    // And that did not touch the live configuration either.
    expect(ok(await emu.call('GET', '/v1/partner/webhook', { key: live.partnerKey })).url).toBe(good);
  });
});

// ---------------------------------------------------------------------------------------------

interface Case {
  name: string;
  answer: string[];
  /** The address the refusal must name: the first non-public one of the answer. */
  blocked: string;
}

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:4700:4700::1111';

function cases(localAddresses: string[]): Case[] {
  const single: [string, string][] = [
    ['loopback', '127.0.0.1'],
    ['loopback, elsewhere in 127/8', '127.53.0.1'],
    ['IPv6 loopback', '::1'],
    ['unspecified', '0.0.0.0'],
    ['IPv6 unspecified', '::'],
    ['private 10/8', '10.0.0.1'],
    ['private 172.16/12', '172.31.255.254'],
    ['private 192.168/16', '192.168.1.1'],
    ['link-local', '169.254.1.1'],
    ['IPv6 link-local', 'fe80::1'],
    ['CGNAT', '100.64.0.1'],
    ['CGNAT, top of the range', '100.127.255.254'],
    ['metadata (AWS, GCP, Azure)', '169.254.169.254'],
    ['metadata (ECS credentials)', '169.254.170.2'],
    ['metadata (Alibaba)', '100.100.100.200'],
    ['metadata (AWS IPv6)', 'fd00:ec2::254'],
    ['metadata (Oracle)', '192.0.0.192'],
    ['unique-local', 'fc00::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
    ['IPv4-mapped private', '::ffff:a00:1'],
    ['IPv4-compatible loopback', '::127.0.0.1'],
    ['NAT64 of a private address', '64:ff9b::a00:1'],
    ['NAT64 of loopback', '64:ff9b::7f00:1'],
    ['local-use NAT64', '64:ff9b:1::c0a8:101'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['Teredo with a loopback client', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['SIIT-translated loopback', '::ffff:0:7f00:1'],
    ['IPv6 link-local with a zone', 'fe80::1%lo'],
    ['IPv6 loopback, written out', '0:0:0:0:0:0:0:1'],
    ['broadcast', '255.255.255.255'],
    ['multicast', '224.0.0.1'],
    ['IPv6 multicast', 'ff02::1'],
    ['documentation', '198.51.100.7'],
    ['benchmarking', '198.18.0.1'],
    ['reserved 240/4', '240.0.0.1'],
  ];
  const own = localAddresses.filter((a) => classifyIp(parseIp(a)!) !== 'public');
  const list: Case[] = [
    ...single.map(([name, a]) => ({ name, answer: [a], blocked: a })),
    ...own.map((a) => ({ name: `this machine's address ${a}`, answer: [a], blocked: a })),
    { name: 'mixed: public first, loopback second', answer: [PUBLIC_V4, '127.0.0.1'], blocked: '127.0.0.1' },
    { name: 'mixed: loopback first, public second', answer: ['127.0.0.1', PUBLIC_V4], blocked: '127.0.0.1' },
    { name: 'mixed: public and metadata', answer: [PUBLIC_V4, '8.8.8.8', '169.254.169.254'], blocked: '169.254.169.254' },
    { name: 'mixed: public IPv6 and IPv6 loopback', answer: [PUBLIC_V6, '::1'], blocked: '::1' },
    { name: 'mixed: public and IPv4-mapped private', answer: [PUBLIC_V4, '::ffff:10.0.0.1'], blocked: '::ffff:10.0.0.1' },
    ...own.map((a) => ({ name: `mixed: public and this machine's ${a}`, answer: [a.includes(':') ? PUBLIC_V6 : PUBLIC_V4, a], blocked: a })),
  ];
  return list;
}

describe('delivering to a live webhook', () => {
  let emu: TestEmulator;
  let wires: Tripwires;
  const answers = new Map<string, string[]>();
  const lookups: string[] = [];

  beforeAll(async () => {
    wires = await startTripwires();
    emu = await startTestEmulator({
      db: path.join(dir, 'deliver.db'),
      clock: manualClock(Date.UTC(2030, 0, 1)),
      lookup: async (host) => {
        lookups.push(host);
        const answer = answers.get(host);
        if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return answer;
      },
    });
  });
  afterAll(async () => {
    await emu?.stop();
    await wires?.close();
  });

  const deliveriesOf = async (key: string, invoiceId: string): Promise<any[]> =>
    ok(await emu.call('GET', `/v1/partner/webhook/deliveries?invoiceId=${invoiceId}&limit=100`, { key })).data;
  const detail = async (key: string, id: string): Promise<any> => ok(await emu.call('GET', `/v1/partner/webhook/deliveries/${id}`, { key }));

  it('refuses every attempt to a name resolving to a non-public address; no connection reaches any local listener', async () => {
    const list = cases(wires.wires.map((w) => w.address));
    expect(wires.wires.map((w) => w.address)).toContain('127.0.0.1');
    expect(list.length).toBeGreaterThan(30);

    // One partner per case, each with its own live webhook, so that retries and resends stay apart.
    const setups = await Promise.all(
      list.map(async (c, i) => {
        const host = `svc-rebind-${i}.example.com`;
        answers.set(host, c.answer);
        const partner = ok(await emu.call('POST', '/__emulator/partners', { body: { name: `SSRF ${i}` } }), 201);
        const key = partner.live.partnerKey as string;
        const merchant = ok(
          await emu.call('POST', '/v1/partner/merchants', {
            key,
            idempotencyKey: `ssrf-merchant-${i}`,
            body: { externalTenantId: `ssrf-${i}`, email: `ssrf-${i}@example.com`, name: `SSRF ${i}` },
          }),
          201,
        );
        const url = `https://${host}:${wires.port}/hook`;
        // The URL text breaks no rule: it is saved.
        expect(ok(await emu.call('PUT', '/v1/partner/webhook', { key, body: { url, secret: SECRET } }))).toMatchObject({
          url,
          environment: 'live',
          enabled: true,
        });
        return { c, host, key, merchantId: merchant.merchantId as string };
      }),
    );
    // Saving checks the text only: nothing was resolved yet.
    expect(lookups).toEqual([]);

    const runs = await Promise.all(
      setups.map(async (s, i) => {
        const invoice = ok(
          await emu.call('POST', '/v1/partner/invoices', {
            key: s.key,
            idempotencyKey: `ssrf-invoice-${i}`,
            body: { merchantId: s.merchantId, amount: '10.00' },
          }),
          201,
        );
        const delivery = await waitUntil(`the delivery for ${s.c.name}`, async () => (await deliveriesOf(s.key, invoice.id)).find((d) => d.attemptCount >= 1));
        return { ...s, deliveryId: delivery.id as string };
      }),
    );

    const problems: string[] = [];
    const checkAttempts = async (count: number) => {
      for (const r of runs) {
        const d = await detail(r.key, r.deliveryId);
        const label = `${r.c.name} (${r.c.answer.join(', ')})`;
        if (d.environment !== 'live') problems.push(`${label}: environment ${d.environment}`);
        if (d.attemptCount !== count || d.attempts.length !== count) problems.push(`${label}: ${d.attemptCount} attempts, expected ${count}`);
        if (d.status === 'succeeded') problems.push(`${label}: succeeded`);
        if (d.lastResponseStatus !== null) problems.push(`${label}: a response status ${d.lastResponseStatus}`);
        for (const a of d.attempts) {
          if (!/^address_blocked: /.test(a.error ?? '') || !a.error.includes(r.c.blocked) || !a.error.includes(r.host)) {
            problems.push(`${label}: attempt ${a.number} (${a.trigger}) failed with ${JSON.stringify(a.error)}, not address_blocked naming ${r.c.blocked}`);
          }
          if (a.responseStatus !== null || a.responseBody !== null) problems.push(`${label}: attempt ${a.number} got a response`);
        }
        if (d.lastError !== d.attempts.at(-1)?.error) problems.push(`${label}: lastError ${d.lastError} is not the last attempt's`);
      }
    };

    // The first attempt.
    await checkAttempts(1);
    // The scheduled retry, 5 s later on the emulator clock.
    await emu.advanceClock(5);
    await checkAttempts(2);
    // A manual resend.
    for (const r of runs) {
      const res = await emu.call('POST', `/v1/partner/webhook/deliveries/${r.deliveryId}/resend`, { key: r.key });
      if (res.status !== 200) problems.push(`${r.c.name}: resend answered ${res.status} ${res.text}`);
    }
    await checkAttempts(3);
    expect(problems).toEqual([]);

    // Each attempt asked the resolver: the check is on the answer at delivery time.
    for (const r of runs) expect(lookups.filter((h) => h === r.host).length, `lookups of ${r.host}`).toBeGreaterThanOrEqual(3);
    await sleep(200);
    expect(wires.seen(), 'connections that reached a local listener').toEqual([]);
  });

  it('control: the same kind of name with a test key (no guard) does reach each local listener', async () => {
    const { test } = emu.keys;
    for (const [j, wire] of wires.wires.entries()) {
      const host = `svc-control-${j}.example.com`;
      answers.set(host, [wire.address]);
      ok(await emu.call('PUT', '/v1/partner/webhook', { key: test.partnerKey, body: { url: `https://${host}:${wires.port}/hook`, secret: SECRET } }));
      const before = wire.connections.length;
      ok(await emu.call('POST', '/v1/invoices', { key: test.merchantKey, idempotencyKey: `ssrf-control-${j}`, body: { amount: '1.00' } }), 201);
      await waitUntil(`a connection to ${wire.address}:${wires.port}`, async () => wire.connections.length > before);
    }
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * An exposed emulator is no open proxy (CONTRACT §8, issue 40): listening beyond loopback, webhook
 * URLs of either environment whose host is or resolves to a non-public address are refused when
 * saved (400 `webhook_url_not_allowed`, nothing saved) and at every connection (a name that resolved
 * elsewhere when it was saved), unless `webhookAllow` lists the host or its range. On loopback the
 * test environment keeps pointing anywhere (the tests above: 'control').
 */
describe('an emulator listening beyond loopback', () => {
  let emu: TestEmulator;
  let wires: Tripwires;
  const answers = new Map<string, string[]>();
  // This machine's first non-loopback address: listed by range, so a name answering it is allowed.
  let listedAddress: string | undefined;

  beforeAll(async () => {
    wires = await startTripwires();
    listedAddress = wires.wires.map((w) => w.address).find((a) => !a.includes(':') && !a.startsWith('127.'));
    emu = await startTestEmulator({
      db: path.join(dir, 'exposed.db'),
      host: '0.0.0.0',
      clock: manualClock(Date.UTC(2030, 0, 1)),
      config: { webhookAllow: ['allowed-by-name.example.com', ...(listedAddress ? [`${listedAddress}/32`] : [])] },
      lookup: async (host) => {
        const answer = answers.get(host);
        if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return answer;
      },
    });
  });
  afterAll(async () => {
    await emu?.stop();
    await wires?.close();
  });

  const literal = (a: string) => (a.includes(':') ? `[${a}]` : a);

  it('refuses, when saved, URLs of either environment whose host is or resolves to a non-public address, and saves nothing', async () => {
    // The listed range's own address is the one case allowed (the last test).
    const notListed = (c: Case) => !c.answer.includes(listedAddress ?? '');
    const list = cases(wires.wires.map((w) => w.address)).filter((c) => notListed(c) && !c.answer.some((a) => a.includes('%')));
    const urls: { label: string; url: string; key: string }[] = [];
    for (const [i, c] of list.entries()) {
      // The address itself, where it is one address.
      if (c.answer.length === 1)
        urls.push({ label: `${c.name} (literal)`, url: `http://${literal(c.answer[0]!)}:${wires.port}/hook`, key: emu.keys.test.partnerKey });
      // A name answering it, in both environments (live's own rules accept the name's text).
      const host = `exposed-save-${i}.example.com`;
      answers.set(host, c.answer);
      urls.push({ label: `${c.name} (test, by name)`, url: `http://${host}:${wires.port}/hook`, key: emu.keys.test.partnerKey });
      urls.push({ label: `${c.name} (live, by name)`, url: `https://${host}/hook`, key: emu.keys.live.partnerKey });
    }
    urls.push({ label: 'localhost', url: `http://localhost:${wires.port}/hook`, key: emu.keys.test.partnerKey });
    urls.push({ label: 'a .localhost name', url: `http://api.localhost:${wires.port}/hook`, key: emu.keys.test.partnerKey });
    expect(urls.length).toBeGreaterThan(100);

    const problems: string[] = [];
    for (const { label, url, key } of urls) {
      const res = await emu.call('PUT', '/v1/partner/webhook', { key, body: { url, secret: SECRET } });
      const e = res.body?.error;
      if (res.status !== 400 || e?.code !== 'webhook_url_not_allowed' || e.param !== 'url' || !String(e.message).includes('--webhook-allow')) {
        problems.push(`${label}: ${url}: ${res.status} ${res.text}`);
      }
    }
    expect(problems, 'URLs an exposed emulator saved').toEqual([]);
    console.log(`[ssrf exposed] ${urls.length} URLs of ${list.length} address cases refused when saved (literals, test and live names), nothing saved`);
    for (const key of [emu.keys.test.partnerKey, emu.keys.live.partnerKey]) {
      expect((await emu.call('GET', '/v1/partner/webhook', { key })).status).toBe(404);
    }

    // A public name and a public address are saved: the rule refuses internal targets only.
    answers.set('public-hook.example.com', [PUBLIC_V4]);
    ok(await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url: 'http://public-hook.example.com/h', secret: SECRET } }));
    ok(await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url: `http://${PUBLIC_V4}/h`, secret: SECRET } }));
    ok(await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.live.partnerKey, body: { url: 'https://public-hook.example.com/h', secret: SECRET } }));
  });

  it('refuses every attempt to a name that resolves to a non-public address when connecting; listed hosts and ranges are delivered to', async () => {
    const list = cases(wires.wires.map((w) => w.address)).filter((c) => !c.answer.includes(listedAddress ?? ''));
    const setups = await Promise.all(
      list.map(async (c, i) => {
        const host = `exposed-rebind-${i}.example.com`;
        // Public when saved, then re-pointed (DNS rebinding) before the delivery connects.
        answers.set(host, [PUBLIC_V4]);
        const partner = ok(await emu.call('POST', '/__emulator/partners', { body: { name: `Exposed ${i}` } }), 201);
        const key = partner.test.partnerKey as string;
        ok(await emu.call('PUT', '/v1/partner/webhook', { key, body: { url: `http://${host}:${wires.port}/hook`, secret: SECRET } }));
        answers.set(host, c.answer);
        const merchant = ok(
          await emu.call('POST', '/v1/partner/merchants', {
            key,
            idempotencyKey: `exposed-merchant-${i}`,
            body: { externalTenantId: `exposed-${i}`, email: `exposed-${i}@example.com`, name: `Exposed ${i}` },
          }),
          201,
        );
        const invoice = ok(
          await emu.call('POST', '/v1/partner/invoices', {
            key,
            idempotencyKey: `exposed-invoice-${i}`,
            body: { merchantId: merchant.merchantId, amount: '1.00' },
          }),
          201,
        );
        return { c, host, key, invoiceId: invoice.id as string };
      }),
    );
    const problems: string[] = [];
    for (const s of setups) {
      const delivery = await waitUntil(`the attempt for ${s.c.name}`, async () => {
        const list = ok(await emu.call('GET', `/v1/partner/webhook/deliveries?invoiceId=${s.invoiceId}`, { key: s.key })).data as any[];
        return list.find((d) => d.attemptCount >= 1);
      });
      const d = ok(await emu.call('GET', `/v1/partner/webhook/deliveries/${delivery.id}`, { key: s.key }));
      const error = String(d.attempts[0]?.error);
      if (!error.startsWith('address_blocked: ') || !error.includes(s.c.blocked) || !error.includes('--webhook-allow')) {
        problems.push(`${s.c.name}: ${error}`);
      }
    }
    expect(problems).toEqual([]);
    await sleep(200);
    expect(wires.seen(), 'connections that reached a local listener').toEqual([]);
    console.log(
      `[ssrf exposed] ${setups.length} names re-pointed after saving: every attempt address_blocked, 0 connections to ${wires.wires.length} local listeners`,
    );

    // Listed by name: delivered, whatever it resolves to (here: loopback).
    const loopbackWire = wires.wires.find((w) => w.address === '127.0.0.1')!;
    answers.set('allowed-by-name.example.com', ['127.0.0.1']);
    const byName = ok(await emu.call('POST', '/__emulator/partners', { body: { name: 'Allowed by name' } }), 201);
    ok(
      await emu.call('PUT', '/v1/partner/webhook', {
        key: byName.test.partnerKey,
        body: { url: `http://allowed-by-name.example.com:${wires.port}/hook`, secret: SECRET },
      }),
    );
    const merchantId = (
      await emu.call('POST', '/v1/partner/merchants', {
        key: byName.test.partnerKey,
        idempotencyKey: 'exposed-allowed-merchant',
        body: { externalTenantId: 'allowed', email: 'allowed@example.com', name: 'Allowed' },
      })
    ).body.merchantId;
    ok(
      await emu.call('POST', '/v1/partner/invoices', {
        key: byName.test.partnerKey,
        idempotencyKey: 'exposed-allowed-1',
        body: { merchantId, amount: '1.00' },
      }),
      201,
    );
    await waitUntil('a connection to the listed host', async () => loopbackWire.connections.length > 0);

    // Listed by range: this machine's own address (/32) is reached; loopback, not listed, is not.
    if (listedAddress) {
      const wire = wires.wires.find((w) => w.address === listedAddress)!;
      answers.set('in-listed-range.example.com', [listedAddress]);
      ok(await emu.call('PUT', '/v1/partner/webhook', { key: byName.test.partnerKey, body: { url: `http://in-listed-range.example.com:${wires.port}/hook` } }));
      ok(
        await emu.call('POST', '/v1/partner/invoices', {
          key: byName.test.partnerKey,
          idempotencyKey: 'exposed-allowed-2',
          body: { merchantId, amount: '1.00' },
        }),
        201,
      );
      await waitUntil(`a connection to ${listedAddress}`, async () => wire.connections.length > 0);
    }
  });
});
