/**
 * `svc webhook listen` against a remote service. A second emulator plays the remote deployment
 * (`--tunnel cloudflared` forces remote mode against it), and the fake cloudflared
 * (test/fixtures/fake-cloudflared.mjs, via CLOUDFLARED_BIN) prints real cloudflared log lines but hands
 * back the relay's own local URL as the "tunnel" (FAKE_CLOUDFLARED_URL=echo), so deliveries really
 * travel service → relay → app. Nothing here reaches the Cloudflare edge.
 */
import dns from 'node:dns/promises';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { ikey, type TestEmulator } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

const FAKE = fileURLToPath(new URL('../fixtures/fake-cloudflared.mjs', import.meta.url));
beforeAll(() => fs.chmodSync(FAKE, 0o755));

const each = perTest();
const remoteService = each.emulator;
const receiver = each.receiver;

interface Setup {
  remote: TestEmulator;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

function setup(remote: TestEmulator, env: NodeJS.ProcessEnv = {}): Setup {
  const cwd = tempDir();
  // The project's .svc/ (listen looks for the nearest one up, else creates it here): made here so that
  // a stray .svc/ in a parent of the temp folder cannot take the restore file elsewhere.
  fs.mkdirSync(path.join(cwd, '.svc'));
  return {
    remote,
    cwd,
    env: {
      SVC_BASE_URL: remote.url,
      SVC_PARTNER_KEY: remote.keys.test.partnerKey,
      CLOUDFLARED_BIN: FAKE,
      FAKE_CLOUDFLARED_URL: 'echo',
      FAKE_CLOUDFLARED_PIDFILE: path.join(cwd, 'cloudflared.pid'),
      ...env,
    },
  };
}

/** `svc webhook listen --tunnel cloudflared --json …`; events parsed. */
function listen(s: Setup, args: string[]) {
  const p = spawnCli(['webhook', 'listen', '--tunnel', 'cloudflared', '--json', ...args], { cwd: s.cwd, env: s.env });
  each.track(p);
  const events = () => p.lines.map((l) => JSON.parse(l) as { type: string; [k: string]: any });
  const waitFor = async (type: string, timeoutMs?: number) =>
    JSON.parse(await p.waitForLine((l) => JSON.parse(l).type === type, timeoutMs)) as { type: string; [k: string]: any };
  return { p, events, waitFor };
}

const webhook = async (s: Setup, key = s.remote.keys.test.partnerKey) => s.remote.call('GET', '/v1/partner/webhook', { key });
const restoreFiles = (s: Setup) =>
  fs.existsSync(path.join(s.cwd, '.svc')) ? fs.readdirSync(path.join(s.cwd, '.svc')).filter((f) => f.startsWith('listen-restore-')) : [];

async function createInvoice(remote: TestEmulator): Promise<string> {
  const res = await remote.call('POST', '/v1/invoices', { key: remote.keys.test.merchantKey, body: { amount: '3.00' }, idempotencyKey: ikey() });
  expect(res.status).toBe(201);
  return res.body.id;
}

const ORIGINAL = { url: 'https://example.com/original-hooks', secret: 'whsec_configured_by_partner_01', enabled: false, customHeaders: { 'X-Partner': 'p1' } };

describe('svc webhook listen (remote service, tunnel)', () => {
  it('points the webhook at the tunnel, relays deliveries verbatim, and restores url/enabled/customHeaders on Ctrl-C', async () => {
    const remote = await remoteService();
    const s = setup(remote);
    expect((await remote.call('PUT', '/v1/partner/webhook', { key: remote.keys.test.partnerKey, body: ORIGINAL })).status).toBe(200);
    const rx = await receiver({ status: 201, body: 'created by the app' });
    const forwardTo = `${rx.url}/hooks`;
    const l = listen(s, ['--forward-to', forwardTo, '--header', 'X-Relay: 1', '--events', 'invoice.paid']);

    const ready = await l.waitFor('ready');
    expect(ready).toMatchObject({ mode: 'remote', forwardTo, secret: null, secretSource: 'configured', events: ['invoice.paid'] });
    expect(ready.tunnelUrl).toBe(ready.relayUrl);
    expect(
      l
        .events()
        .filter((e) => e.type === 'tunnel')
        .map((e) => e.state),
    ).toEqual(expect.arrayContaining(['starting', 'url']));
    // While listening: the webhook points at the tunnel, enabled, with its secret and headers kept.
    expect((await webhook(s)).body).toMatchObject({ url: ready.tunnelUrl, enabled: true, secretConfigured: true, customHeaders: ORIGINAL.customHeaders });
    expect(restoreFiles(s)).toHaveLength(1);

    // Filtered out: answered 200 by the relay, never forwarded.
    const inv = await createInvoice(remote);
    const filtered = await l.waitFor('filtered');
    expect(filtered).toMatchObject({ eventType: 'invoice.created', eventId: `${inv}-1` });
    // Forwarded: the app gets the service's raw body and headers, verifiable with the partner's secret.
    await remote.call('POST', `/v1/test_helpers/invoices/${inv}/payments`, { key: remote.keys.test.merchantKey, body: {} });
    const [req] = await rx.waitFor(1);
    const event = verifyWebhook(req!.rawBody, req!.headers['x-service-signature'] as string, ORIGINAL.secret);
    expect(event).toMatchObject({ id: `${inv}-2`, type: 'invoice.paid' });
    expect(req!.headers).toMatchObject({ 'content-type': 'application/json', 'x-partner': 'p1', 'x-relay': '1' });
    expect(req!.headers['user-agent']).toMatch(/^svc-emulator\//);
    expect(await l.waitFor('forwarded')).toMatchObject({ eventType: 'invoice.paid', eventId: `${inv}-2`, status: 201, url: forwardTo, method: 'POST' });

    // The service recorded the app's own answer: once the relay's answer reached it, which can be a
    // moment after listen reports the forward.
    const list = await remote.call('GET', `/v1/partner/webhook/deliveries?invoiceId=${inv}&eventType=invoice.paid`, { key: remote.keys.test.partnerKey });
    const delivery = async () =>
      (await remote.call('GET', `/v1/partner/webhook/deliveries/${list.body.data[0].id}`, { key: remote.keys.test.partnerKey })).body;
    await expect.poll(async () => (await delivery()).attempts[0], { timeout: 5000 }).toMatchObject({ responseStatus: 201, responseBody: 'created by the app' });
    expect((await delivery()).payload).toBe(req!.rawBody);

    expect(await l.p.stop('SIGINT')).toBe(0);
    // Restored first, then cloudflared stopped, then the final event.
    expect(
      l
        .events()
        .filter((e) => e.type !== 'tunnel' || e.state === 'exited')
        .slice(-4),
    ).toEqual([
      { type: 'restoring', reason: 'exit', to: { url: ORIGINAL.url, enabled: false, customHeaders: ORIGINAL.customHeaders } },
      { type: 'restored', reason: 'exit', action: 'restored', url: ORIGINAL.url, enabled: false },
      { type: 'tunnel', state: 'exited', code: 0, signal: null },
      { type: 'stopped', signal: 'SIGINT' },
    ]);
    expect((await webhook(s)).body).toMatchObject({ url: ORIGINAL.url, enabled: false, customHeaders: ORIGINAL.customHeaders, secretConfigured: true });
    expect(restoreFiles(s)).toEqual([]);
    // cloudflared was stopped with it.
    expect(isAlive(Number(fs.readFileSync(s.env.FAKE_CLOUDFLARED_PIDFILE!, 'utf8')))).toBe(false);
  });

  it('restores on SIGTERM too (human output)', async () => {
    const remote = await remoteService();
    const s = setup(remote);
    const before = { url: 'https://example.com/enabled-hooks', secret: 'whsec_configured_by_partner_02', enabled: true };
    await remote.call('PUT', '/v1/partner/webhook', { key: remote.keys.test.partnerKey, body: before });
    const rx = await receiver();
    const p = spawnCli(['webhook', 'listen', '--tunnel', 'cloudflared', '--forward-to', `${rx.url}/hooks`], { cwd: s.cwd, env: s.env });
    each.track(p);
    expect(await p.waitForLine((l) => l.startsWith('Ready!'))).toBe(
      `Ready! Forwarding to ${rx.url}/hooks · signed with your webhook's configured secret (^C to quit)`,
    );
    expect(p.lines.join('\n')).toMatch(
      /^Tunnel http:\/\/127\.0\.0\.1:\d+ → relay http:\/\/127\.0\.0\.1:\d+; the test webhook points at the tunnel until listen stops$/m,
    );
    expect((await webhook(s)).body.url).not.toBe(before.url);
    expect(await p.stop('SIGTERM')).toBe(0);
    expect(p.lines).toContain(`Webhook restored: ${before.url} (enabled)`);
    expect((await webhook(s)).body).toMatchObject({ url: before.url, enabled: true, customHeaders: {} });
  });

  it('with no webhook configured: creates one with a printed secret, and leaves it disabled on exit', async () => {
    const remote = await remoteService();
    const s = setup(remote);
    expect((await webhook(s)).status).toBe(404);
    const rx = await receiver();
    const l = listen(s, ['--forward-to', `${rx.url}/hooks`]);
    const ready = await l.waitFor('ready');
    expect(ready).toMatchObject({ secretSource: 'generated', secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32}$/) });
    const inv = await createInvoice(remote);
    const [req] = await rx.waitFor(1);
    expect(verifyWebhook(req!.rawBody, req!.headers['x-service-signature'] as string, ready.secret).id).toBe(`${inv}-1`);
    expect(await l.p.stop('SIGINT')).toBe(0);
    expect(l.events().find((e) => e.type === 'restored')).toMatchObject({ action: 'disabled', enabled: false, url: ready.tunnelUrl });
    expect((await webhook(s)).body).toMatchObject({ enabled: false, url: ready.tunnelUrl });
  });

  it('a listen killed with SIGKILL is repaired by the next run (restore file)', async () => {
    const remote = await remoteService();
    const s = setup(remote);
    await remote.call('PUT', '/v1/partner/webhook', { key: remote.keys.test.partnerKey, body: ORIGINAL });
    const rx = await receiver();
    const first = listen(s, ['--forward-to', `${rx.url}/hooks`]);
    const ready = await first.waitFor('ready');
    first.p.child.kill('SIGKILL');
    await first.p.exited;
    // Killed outright, it could not restore, nor stop its cloudflared (which the test stops).
    process.kill(Number(fs.readFileSync(s.env.FAKE_CLOUDFLARED_PIDFILE!, 'utf8')), 'SIGKILL');
    expect((await webhook(s)).body).toMatchObject({ url: ready.tunnelUrl, enabled: true });
    expect(restoreFiles(s)).toHaveLength(1);

    const second = listen(s, ['--forward-to', `${rx.url}/hooks`]);
    const again = await second.waitFor('ready');
    const events = second.events();
    // Repaired first, then listening as usual (on a new tunnel).
    expect(events.slice(0, 2)).toEqual([
      { type: 'restoring', reason: 'leftover', to: { url: ORIGINAL.url, enabled: false, customHeaders: ORIGINAL.customHeaders } },
      { type: 'restored', reason: 'leftover', action: 'restored', url: ORIGINAL.url, enabled: false },
    ]);
    expect((await webhook(s)).body).toMatchObject({ url: again.tunnelUrl, enabled: true });
    expect(await second.p.stop('SIGINT')).toBe(0);
    expect((await webhook(s)).body).toMatchObject({ url: ORIGINAL.url, enabled: false, customHeaders: ORIGINAL.customHeaders });
    expect(restoreFiles(s)).toEqual([]);
  });

  it('refuses live keys with a clear message and changes nothing', async () => {
    const remote = await remoteService();
    const s = setup(remote, { SVC_PARTNER_KEY: remote.keys.live.partnerKey });
    const live = { url: 'https://example.com/live-hooks', secret: 'whsec_live_configured_0001', enabled: true };
    await remote.call('PUT', '/v1/partner/webhook', { key: remote.keys.live.partnerKey, body: live });
    const before = (await webhook(s, remote.keys.live.partnerKey)).body;
    const res = await runCli(['webhook', 'listen', '--tunnel', 'cloudflared', '--forward-to', '3000'], { cwd: s.cwd, env: s.env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^error svc webhook listen works with test keys only; pt_live_\w{4}…\w{4} is a live key, and listen will not repoint a live webhook\n/,
    );
    expect((await webhook(s, remote.keys.live.partnerKey)).body).toEqual(before);
    expect(restoreFiles(s)).toEqual([]);
  });

  it('a missing cloudflared binary is one clear message, exit 1, and the webhook is untouched', async () => {
    const remote = await remoteService();
    const s = setup(remote, { CLOUDFLARED_BIN: path.join(tempDir(), 'no-such-cloudflared') });
    await remote.call('PUT', '/v1/partner/webhook', { key: remote.keys.test.partnerKey, body: ORIGINAL });
    const before = (await webhook(s)).body;
    const res = await runCli(['webhook', 'listen', '--tunnel', 'cloudflared', '--forward-to', '3000', '--json'], { cwd: s.cwd, env: s.env });
    expect(res.code).toBe(1);
    const lines = res.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      {
        type: 'fatal',
        code: 'cloudflared_bin_invalid',
        message: expect.stringMatching(/^CLOUDFLARED_BIN is set to .*no-such-cloudflared, but that file does not exist\.$/),
        hint: expect.any(String),
        exitCode: 1,
      },
    ]);
    expect((await webhook(s)).body).toEqual(before);
    expect(restoreFiles(s)).toEqual([]);
  });

  it('no cloudflared anywhere and no network to download it: says so and what to do', async (t) => {
    // Only meaningful offline, where the `cloudflared` package's download must fail; online it would
    // really download the binary into node_modules.
    const online = await dns.lookup('github.com').then(
      () => true,
      () => false,
    );
    const packaged = fs.existsSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/cloudflared/bin/cloudflared'));
    if (online || packaged) t.skip();
    const remote = await remoteService();
    const s = setup(remote, { CLOUDFLARED_BIN: '', PATH: '/usr/bin:/bin' });
    await remote.call('PUT', '/v1/partner/webhook', { key: remote.keys.test.partnerKey, body: ORIGINAL });
    const before = (await webhook(s)).body;
    const res = await runCli(['webhook', 'listen', '--tunnel', 'cloudflared', '--forward-to', '3000'], { cwd: s.cwd, env: s.env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error cloudflared is not installed and could not be downloaded, so no tunnel can be opened\.\n/);
    expect(res.stderr).toContain('set CLOUDFLARED_BIN to its path');
    expect(res.stderr).toContain('--tunnel none');
    expect((await webhook(s)).body).toEqual(before);
  });

  it('cloudflared failing to start changes nothing; cloudflared dying later restores, then exits 1', async () => {
    const remote = await remoteService();
    await remote.call('PUT', '/v1/partner/webhook', { key: remote.keys.test.partnerKey, body: ORIGINAL });
    const before = (await remote.call('GET', '/v1/partner/webhook', { key: remote.keys.test.partnerKey })).body;

    const s = setup(remote, { FAKE_CLOUDFLARED_MODE: 'exit-before-url' });
    const failed = await runCli(['webhook', 'listen', '--tunnel', 'cloudflared', '--forward-to', '3000'], { cwd: s.cwd, env: s.env });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^error cloudflared exited with code 1 before printing a tunnel URL\.\n/);
    expect(failed.stderr).toContain('failed to request quick Tunnel');
    expect((await webhook(s)).body).toEqual(before);
    expect(restoreFiles(s)).toEqual([]);

    const dies = setup(remote, { FAKE_CLOUDFLARED_MODE: 'exit-after-url' });
    const rx = await receiver();
    const l = listen(dies, ['--forward-to', `${rx.url}/hooks`]);
    await l.waitFor('ready');
    expect(await l.p.exited).toBe(1);
    expect(l.events().slice(-3)).toMatchObject([
      { type: 'restoring', reason: 'exit' },
      { type: 'restored', action: 'restored', url: ORIGINAL.url, enabled: false },
      {
        type: 'fatal',
        code: 'tunnel_exited',
        message: expect.stringMatching(/^cloudflared exited with code 1; the tunnel http:\/\/127\.0\.0\.1:\d+ is gone\.$/),
        exitCode: 1,
      },
    ]);
    expect((await webhook(dies)).body).toEqual({ ...before, updatedAt: expect.any(String) });
    expect(restoreFiles(dies)).toEqual([]);
  });

  it('--tunnel auto picks remote mode for a service without the emulator control plane', async () => {
    const remote = await remoteService();
    // A real deployment has no /__emulator/: a proxy that hides it makes the emulator look like one.
    const proxy = http.createServer((req, res) => {
      if (req.url?.startsWith('/__emulator/')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'not_found', message: 'No such route.' } }));
        return;
      }
      const upstream = http.request(`${remote.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    each.defer(() => new Promise((resolve) => proxy.close(resolve)));
    const s = setup(remote, { SVC_BASE_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
    const rx = await receiver();
    const p = spawnCli(['webhook', 'listen', '--json', '--forward-to', `${rx.url}/hooks`], { cwd: s.cwd, env: s.env });
    each.track(p);
    const ready = JSON.parse(await p.waitForLine((l) => l.includes('"ready"')));
    expect(ready).toMatchObject({ mode: 'remote', tunnelUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(p.lines.map((l) => JSON.parse(l).type)).toContain('tunnel');
    expect(await p.stop('SIGINT')).toBe(0);
    expect((await webhook(s)).body).toMatchObject({ enabled: false });
  });

  it('--tunnel none registers the relay itself; --print-secret explains why it cannot print one', async () => {
    const remote = await remoteService();
    const s = setup(remote);
    await remote.call('PUT', '/v1/partner/webhook', { key: remote.keys.test.partnerKey, body: ORIGINAL });
    const rx = await receiver();
    const p = spawnCli(['webhook', 'listen', '--tunnel', 'none', '--json', '--forward-to', `${rx.url}/hooks`], { cwd: s.cwd, env: s.env });
    each.track(p);
    const ready = JSON.parse(await p.waitForLine((l) => l.includes('"ready"')));
    expect(ready.tunnelUrl).toBeUndefined();
    expect((await webhook(s)).body.url).toBe(ready.relayUrl);
    await createInvoice(remote);
    await rx.waitFor(1);
    expect(await p.stop('SIGINT')).toBe(0);
    expect((await webhook(s)).body).toMatchObject({ url: ORIGINAL.url, enabled: false });

    const secret = await runCli(['webhook', 'listen', '--tunnel', 'none', '--print-secret'], { cwd: s.cwd, env: s.env });
    expect(secret.code).toBe(1);
    expect(secret.stderr).toContain(
      "error against a remote service, listen forwards deliveries signed with your webhook's configured secret, which cannot be read back",
    );
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
