/**
 * `svc webhook listen` against the emulator (local mode), as users run it: the built CLI spawned
 * next to a real emulator and a real local receiver. Forwarding (raw body, signature, --header,
 * filters), failures and their retries, the deliveries record, --print-secret, --json, and the
 * reliability promises: reconnecting after the emulator is killed and restarted, catching up on what
 * happened while listen was disconnected or stopped, and giving up with a clear error.
 */
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { runCli, spawnCli, type LiveCli } from '../helpers/cli.js';
import { ikey, request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

const each = perTest();
const emulator = each.emulator;
const receiver = each.receiver;

/** `svc webhook listen …` against `emu` (base URL and partner key from the environment). */
function listen(emu: TestEmulator | null, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): LiveCli {
  const env = emu ? { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey } : {};
  const p = spawnCli(['webhook', 'listen', ...args], { cwd: options.cwd ?? tempDir(), env: { ...env, ...options.env } });
  each.track(p);
  return p;
}

const READY = /^Ready! Forwarding to (\S+) · signing secret (whsec_[0-9A-Za-z]{32}) \(\^C to quit\)$/;
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function newInvoice(emu: TestEmulator | { url: string; keys: TestEmulator['keys'] }): Promise<string> {
  const res = await request(emu.url, 'POST', '/v1/invoices', { key: emu.keys.test.merchantKey, body: { amount: '5.00' }, idempotencyKey: ikey() });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function listenerDeliveries(baseUrl: string, key: string, invoiceId: string, url: string) {
  const res = await request(baseUrl, 'GET', `/v1/partner/webhook/deliveries?invoiceId=${invoiceId}`, { key });
  return (
    res.body.data as {
      url: string;
      eventType: string;
      status: string;
      attemptCount: number;
      lastError: string | null;
      lastResponseStatus: number | null;
      id: string;
    }[]
  ).filter((d) => d.url === url);
}

/** A port nothing listens on (for refused connections, and for a restartable emulator). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('svc webhook listen (local emulator)', () => {
  it('forwards the filtered events verbatim, signed with the printed secret, plus --header; records the results', async () => {
    const emu = await emulator();
    const rx = await receiver({ status: 200, body: 'thanks' });
    const forwardTo = `${rx.url}/hooks`;
    const p = listen(emu, ['--forward-to', forwardTo, '--events', 'invoice.paid,invoice.expired', '--header', 'X-Listen: yes']);
    const ready = READY.exec(await p.waitForLine((l) => l.startsWith('Ready!')))!;
    expect(ready[1]).toBe(forwardTo);
    const secret = ready[2]!;
    // --print-secret prints the same stable secret.
    const printed = await runCli(['webhook', 'listen', '--print-secret'], { env: { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey } });
    expect(printed.code).toBe(0);
    expect(printed.stdout.trim()).toBe(secret);

    const paid = await newInvoice(emu);
    await emu.call('POST', `/v1/test_helpers/invoices/${paid}/payments`, { key: emu.keys.test.merchantKey, body: {} });
    const expired = await newInvoice(emu);
    await emu.call('POST', `/v1/test_helpers/invoices/${expired}/expire`, { key: emu.keys.test.merchantKey });

    const got = await rx.waitFor(2);
    expect(got.map((r) => JSON.parse(r.rawBody).type).sort()).toEqual(['invoice.expired', 'invoice.paid']);
    for (const req of got) {
      // The receiver verifies exactly as a real delivery, with the secret listen printed.
      const event = verifyWebhook(req.rawBody, req.headers['x-service-signature'] as string, secret);
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/hooks');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['user-agent']).toMatch(/^svc-emulator\//);
      expect(req.headers['x-listen']).toBe('yes');
      // Byte for byte what the emulator sent: the delivery's recorded payload.
      const [delivery] = (await listenerDeliveries(emu.url, emu.keys.test.partnerKey, event.data.invoiceId, forwardTo)).filter(
        (d) => d.eventType === event.type,
      );
      const detail = await emu.call('GET', `/v1/partner/webhook/deliveries/${delivery!.id}`, { key: emu.keys.test.partnerKey });
      expect(req.rawBody).toBe(detail.body.payload);
    }

    const paidLine = await p.waitForLine((l) => l.startsWith('--> invoice.paid'));
    expect(paidLine).toBe(`--> invoice.paid [${paid}-2]`);
    // The response line names the event: forwards run concurrently and their answers interleave.
    expect(await p.waitForLine((l) => l.startsWith('<--'))).toMatch(
      new RegExp(`^<-- \\[200\\] invoice\\.paid \\[${paid}-2\\] POST ${esc(forwardTo)} \\(\\d+ ms\\)$`),
    );
    await p.waitForLine((l) => l === `--> invoice.expired [${expired}-2]`);

    // Filtered out: no invoice.created was forwarded or shown.
    expect(p.lines.join('\n')).not.toContain('invoice.created');
    expect(got.some((r) => r.rawBody.includes('"invoice.created"'))).toBe(false);

    // The results are in the deliveries, as for any delivery.
    await expect
      .poll(async () =>
        (await listenerDeliveries(emu.url, emu.keys.test.partnerKey, paid, forwardTo)).map((d) => [d.eventType, d.status, d.lastResponseStatus]),
      )
      .toEqual([['invoice.paid', 'succeeded', 200]]);
    // Each result is recorded when it comes back, in the dispatcher's next batch: the expired one's
    // may come after the paid one's (forwards run concurrently), so it is waited for too.
    await expect
      .poll(async () => (await listenerDeliveries(emu.url, emu.keys.test.partnerKey, expired, forwardTo)).map((d) => [d.eventType, d.status]))
      .toEqual([['invoice.expired', 'succeeded']]);

    expect(await p.stop('SIGINT')).toBe(0);
    // The one stderr line: the clean stop unregistered the listener (issue 24).
    expect(p.stderr()).toBe(`Unregistered the listener from ${emu.url}: events are no longer delivered to it.\n`);
  });

  it('shows receiver failures with the reason; the emulator retries them like any delivery', async () => {
    const emu = await emulator();
    const rx = await receiver((_req, n) => (n === 1 ? { status: 500, body: 'boom' } : { status: 200 }));
    const forwardTo = `${rx.url}/hooks`;
    const p = listen(emu, ['--forward-to', forwardTo]);
    await p.waitForLine((l) => l.startsWith('Ready!'));

    const inv = await newInvoice(emu);
    const failed = await p.waitForLine((l) => l.startsWith('<-- [500]'));
    expect(failed).toMatch(
      new RegExp(`^<-- \\[500\\] invoice\\.created \\[${inv}-1\\] POST ${esc(forwardTo)} \\(\\d+ ms\\) http_status: 500 Internal Server Error$`),
    );
    await expect
      .poll(async () => (await listenerDeliveries(emu.url, emu.keys.test.partnerKey, inv, forwardTo))[0]?.lastError)
      .toBe('http_status: 500 Internal Server Error');
    const [first] = await listenerDeliveries(emu.url, emu.keys.test.partnerKey, inv, forwardTo);
    expect(first).toMatchObject({ target: 'listener', status: 'retrying', attemptCount: 1, lastResponseStatus: 500 });

    // `tail` and `deliveries list` say which target an attempt went to: here, the listener.
    const env = { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey };
    const tail = each.track(spawnCli(['webhook', 'deliveries', 'tail', '--invoice', inv], { cwd: tempDir(), env }));
    await expect.poll(() => tail.stderr(), { timeout: 10_000 }).toContain('Tailing webhook delivery attempts');

    // The retry is due 5 s later on the emulator clock: advancing it fires the retry through listen.
    expect((await emu.call('POST', '/__emulator/clock/advance', { body: { seconds: 5 } })).status).toBe(200);
    await p.waitForLine((l) => l === `--> invoice.created [${inv}-1] (attempt 2)`);
    await p.waitForLine((l) => l.startsWith('<-- [200]'));
    await expect
      .poll(async () => (await listenerDeliveries(emu.url, emu.keys.test.partnerKey, inv, forwardTo))[0])
      .toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(rx.requests).toHaveLength(2);
    expect(await tail.waitForLine((l) => l.includes(`[${inv}-1]`))).toMatch(
      new RegExp(`<-- \\[200\\] invoice\\.created \\[${inv}-1\\] listener POST ${esc(forwardTo)} .* succeeded · attempt 2$`),
    );
    const list = await runCli(['webhook', 'deliveries', 'list', '--invoice', inv], { cwd: tempDir(), env });
    expect(list.stdout.split('\n').find((l) => l.includes(forwardTo))).toMatch(/succeeded\s+2\s+200\s+—\s+listener\s+http:/);
    expect(await p.stop('SIGTERM')).toBe(0);

    // A refused connection, with --json: every line is one JSON object (a ListenEvent).
    const dead = `http://127.0.0.1:${await freePort()}/hooks`;
    const j = listen(emu, ['--forward-to', dead, '--json']);
    const ready = JSON.parse(await j.waitForLine((l) => l.includes('"ready"')));
    expect(ready).toMatchObject({
      type: 'ready',
      mode: 'local',
      forwardTo: dead,
      secret: expect.stringMatching(/^whsec_/),
      secretSource: 'listener',
      events: null,
    });
    const second = await newInvoice(emu);
    const failure = JSON.parse(await j.waitForLine((l) => l.includes('"forward_failed"')));
    expect(failure).toMatchObject({
      type: 'forward_failed',
      eventType: 'invoice.created',
      eventId: `${second}-1`,
      url: dead,
      status: null,
      errorKind: 'connection_refused',
    });
    expect(failure.reason).toMatch(/^connection_refused: 127\.0\.0\.1:\d+$/);
    await expect
      .poll(async () => (await listenerDeliveries(emu.url, emu.keys.test.partnerKey, second, dead))[0]?.lastError ?? '')
      .toMatch(/^connection_refused: /);
    expect(await j.stop('SIGINT')).toBe(0);
    const events = j.lines.map((l) => JSON.parse(l) as { type: string });
    // (A retry of the refused delivery may slip in if this ran slowly; the order is what matters.)
    expect(events.map((e) => e.type).slice(0, 3)).toEqual(['ready', 'event', 'forward_failed']);
    expect(events.at(-1)).toEqual({ type: 'stopped', signal: 'SIGINT' });
  });

  it('reconnects after the emulator is killed and restarted, forwards what happened while it was away; a clean stop unregisters', {
    timeout: 60_000,
  }, async () => {
    const dir = tempDir();
    const port = await freePort();
    const db = path.join(dir, 'emulator.sqlite');
    const dev = () => {
      const d = spawnCli(['dev', '--port', String(port), '--db', db, '--json'], { cwd: dir });
      each.track(d);
      return d;
    };
    let emu = dev();
    const info = JSON.parse(await emu.waitForLine(() => true)) as { baseUrl: string; test: TestEmulator['keys']['test'] };
    const target = { url: info.baseUrl, keys: { test: info.test } as TestEmulator['keys'] };
    const rx = await receiver();
    const forwardTo = `${rx.url}/hooks`;
    // No flags: listen finds the emulator and its keys through .svc/dev.json, as in a project.
    let p = listen(null, ['--forward-to', forwardTo], { cwd: dir });
    await p.waitForLine((l) => l.startsWith('Ready!'));
    const before = await newInvoice(target);
    await p.waitForLine((l) => l === `--> invoice.created [${before}-1]`);
    await expect.poll(async () => (await listenerDeliveries(target.url, info.test.partnerKey, before, forwardTo))[0]?.status).toBe('succeeded');

    // The emulator dies: listen says so and keeps trying, with growing delays.
    emu.child.kill('SIGKILL');
    await emu.exited;
    expect(await p.waitForLine((l) => l.startsWith('Connection lost'))).toMatch(/^Connection lost \(.+\); reconnecting in 0\.3 s \(attempt 1\)…$/);
    await p.waitForLine((l) => l.includes('(attempt 5)'), 15_000);

    // Back on the same port and database. An event now, before listen is back, is not lost.
    emu = dev();
    await emu.waitForLine(() => true);
    const meanwhile = await newInvoice(target);
    expect(p.lines.some((l) => l.startsWith('Reconnected'))).toBe(false);
    await p.waitForLine((l) => l.startsWith('Reconnected after'), 15_000);
    // Its first attempt failed (no listener connected); reconnecting made the retry due at once.
    await p.waitForLine((l) => l === `--> invoice.created [${meanwhile}-1] (attempt 2)`);

    // listen itself stopped cleanly (Ctrl-C, exit 0): it unregisters and says so on stderr (issue 24),
    // so events while it is stopped make no delivery that would retry for hours.
    expect(await p.stop('SIGINT')).toBe(0);
    expect(p.stderr()).toContain(`Unregistered the listener from ${info.baseUrl}: events are no longer delivered to it.\n`);
    const whileStopped = await newInvoice(target);
    p = listen(null, ['--forward-to', forwardTo], { cwd: dir });
    await p.waitForLine((l) => l.startsWith('Ready!'));
    const afterwards = await newInvoice(target);
    await p.waitForLine((l) => l === `--> invoice.created [${afterwards}-1]`);
    expect(await listenerDeliveries(target.url, info.test.partnerKey, whileStopped, forwardTo)).toEqual([]);

    // listen prints `-->` as it starts a forward: the receiver may record it a moment later.
    const ids = () => rx.requests.map((r) => JSON.parse(r.rawBody).id as string);
    for (const id of [before, meanwhile, afterwards]) await expect.poll(ids, { timeout: 30_000 }).toContain(`${id}-1`);
    expect(ids()).not.toContain(`${whileStopped}-1`);
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('gives up with a clear error and a non-zero exit when the emulator stays away', async () => {
    const emu = await startTestEmulator();
    const rx = await receiver();
    const p = listen(emu, ['--forward-to', `${rx.url}/hooks`], { env: { SVC_LISTEN_RECONNECT_TIMEOUT: '2' } });
    await p.waitForLine((l) => l.startsWith('Ready!'));
    const stoppedAt = Date.now();
    await emu.stop();
    expect(await p.exited).toBe(3);
    expect(Date.now() - stoppedAt).toBeLessThan(6000);
    expect(p.lines.filter((l) => l.startsWith('Connection lost')).length).toBeGreaterThanOrEqual(2);
    expect(p.stderr()).toMatch(
      new RegExp(`^error lost the connection to the emulator at ${esc(emu.url)} and could not reconnect within 2 s \\(last error: .+\\)\\n`),
    );
    expect(p.stderr()).toContain('Start the emulator again (`svc dev`)');
  });

  it("warns at start when the partner's webhook delivers to the same URL (every event would arrive twice)", async () => {
    const emu = await emulator();
    const rx = await receiver();
    const put = await emu.call('PUT', '/v1/partner/webhook', {
      key: emu.keys.test.partnerKey,
      body: { url: `http://localhost:${new URL(rx.url).port}/hooks`, secret: 'whsec_same_target_12' },
    });
    expect(put.status).toBe(200);
    const p = listen(emu, ['--forward-to', `${rx.url}/hooks`]);
    await p.waitForLine((l) => l.startsWith('Ready!'));
    await expect.poll(() => p.stderr(), { timeout: 5000 }).toContain('warning your webhook (svc webhook get) also delivers to');
    expect(p.stderr()).toContain('svc webhook set --disable');

    // Another URL, or a disabled webhook: nothing to warn about.
    const other = listen(emu, ['--forward-to', `${rx.url}/other`, '--json']);
    await other.waitForLine((l) => l.includes('"type":"ready"'));
    expect(other.lines.some((l) => l.includes('"type":"warning"'))).toBe(false);
  });

  it('refuses a bad --forward-to with a usage error naming the flag', async () => {
    const emu = await emulator();
    const bad = await runCli(['webhook', 'listen', '--forward-to', 'ftp://example.com/x'], {
      env: { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--forward-to "ftp://example.com/x" uses ftp, not http or https');
    const missing = await runCli(['webhook', 'listen'], { env: { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: emu.keys.test.partnerKey } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing required option --forward-to');
  });
});
