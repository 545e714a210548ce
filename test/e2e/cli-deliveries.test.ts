import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import { runCli, runInProcess, type RunResult } from '../helpers/cli.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `svc webhook deliveries list|get|resend` against a real emulator delivering to a real receiver,
 * in human and --json mode. Most run in-process; one of each group runs the built bin/svc.js
 * (the e2e project builds dist/ first). The emulator's clock is
 * manual, so no retry fires on its own while the tests look.
 */
const dir = tempDir('svc-deliveries-');
const ANSI = /\u001b\[/;
const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };
const LONG_BODY = `${'x'.repeat(300)}END`;

let emu: TestEmulator;
let receiver: Receiver;
let env: Record<string, string>;
let pt: string;
/** Invoice A: created and paid, both delivered fine. Invoice B: created fine, paid answered 500. */
let invoiceA: string;
let invoiceB: string;

async function svc(args: string[]): Promise<RunResult> {
  const r = await runInProcess(args, { cwd: dir, env: { ...NO_TARGET, ...env } });
  expect(r.stdout + r.stderr).not.toMatch(ANSI);
  return r;
}
async function spawned(args: string[]): Promise<RunResult> {
  const r = await runCli(args, { cwd: dir, env: { ...NO_TARGET, ...env } });
  expect(r.stdout + r.stderr).not.toMatch(ANSI);
  return r;
}
function json<T = any>(r: RunResult, code = 0): T {
  expect(r.code, r.stderr).toBe(code);
  return JSON.parse(r.stdout) as T;
}
const api = async (path: string) => (await emu.call('GET', path, { key: pt })).body;

/** Creates and pays an invoice (`before` runs between the two), then waits for both first attempts. */
async function payInvoice(before: (id: string) => void = () => {}): Promise<string> {
  const inv = await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, body: { amount: '2.50' }, idempotencyKey: ikey() });
  before(inv.body.id);
  await emu.call('POST', `/v1/test_helpers/invoices/${inv.body.id}/payments`, { key: pt, body: {} });
  // A generous ceiling: on a loaded machine 5 s was not enough (issue 23).
  const deadline = Date.now() + 60_000;
  while ((await api(`/v1/partner/webhook/deliveries?invoiceId=${inv.body.id}`)).data.filter((d: any) => d.attemptCount > 0).length < 2) {
    if (Date.now() > deadline) throw new Error('the deliveries were not attempted within 60 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  return inv.body.id;
}

beforeAll(async () => {
  emu = await startTestEmulator({ clock: manualClock() });
  pt = emu.keys.test.partnerKey;
  env = { SVC_BASE_URL: emu.url, SVC_PARTNER_KEY: pt, SVC_MERCHANT_KEY: emu.keys.test.merchantKey };
  receiver = await startReceiver((req) =>
    JSON.parse(req.rawBody).type === 'invoice.paid' && JSON.parse(req.rawBody).data.invoiceId === invoiceB
      ? { status: 500, body: LONG_BODY }
      : { status: 200, body: 'thanks' },
  );
  await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: `${receiver.url}/hooks`, secret: 'whsec_deliveries_cli_test' } });
  invoiceA = await payInvoice();
  // The receiver reads invoiceB when the request arrives, so it is set before paying.
  await payInvoice((id) => (invoiceB = id));
});
afterAll(async () => {
  await emu?.stop();
  await receiver?.close();
});

describe('webhook deliveries list', () => {
  it('human: a table of the newest first, statuses, attempts, last result, next attempt, url', async () => {
    const r = await svc(['webhook', 'deliveries', 'list']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+event\s+status\s+attempts\s+last\s+next attempt\s+target\s+url$/);
    expect(lines).toHaveLength(5);
    const all = (await api('/v1/partner/webhook/deliveries')).data;
    lines.slice(1).forEach((line, i) => {
      expect(line.startsWith(all[i].id)).toBe(true);
    });
    const failed = lines.find((l) => l.includes('invoice.paid') && l.includes('retrying'))!;
    expect(failed).toMatch(/retrying\s+1\s+500 http_status: 500/);
    expect(failed).toMatch(/\d{4}-\d\d-\d\dT[\d:.]+Z\s+webhook\s+http:\/\/127\.0\.0\.1:\d+\/hooks$/);
    expect(lines.filter((l) => /succeeded\s+1\s+200\s+—\s+webhook\s+http/.test(l))).toHaveLength(3);
  });

  it('--json prints the API list as returned; filters map to the API', async () => {
    expect(json(await svc(['webhook', 'deliveries', 'list', '--json']))).toEqual(await api('/v1/partner/webhook/deliveries'));
    const retrying = json(await svc(['webhook', 'deliveries', 'list', '--status', 'retrying', '--json']));
    expect(retrying.data.map((d: any) => [d.eventType, d.invoiceId])).toEqual([['invoice.paid', invoiceB]]);
    const created = json(await svc(['webhook', 'deliveries', 'list', '--event-type', 'invoice.created', '--json']));
    expect(created.data.map((d: any) => d.invoiceId)).toEqual([invoiceB, invoiceA]);
    const forA = json(await svc(['webhook', 'deliveries', 'list', '--invoice', invoiceA, '--json']));
    expect(forA).toEqual(await api(`/v1/partner/webhook/deliveries?invoiceId=${invoiceA}`));
    expect(forA.data.map((d: any) => d.eventType).sort()).toEqual(['invoice.created', 'invoice.paid']);
    const none = await svc(['webhook', 'deliveries', 'list', '--invoice', invoiceA, '--status', 'failed']);
    expect(none.stdout).toBe('(no deliveries)\n');
  });

  it('pages with --limit and --starting-after (spawned)', async () => {
    const all = (await api('/v1/partner/webhook/deliveries')).data.map((d: any) => d.id);
    const first = await spawned(['webhook', 'deliveries', 'list', '--limit', '3']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trimEnd().split('\n').at(-1)).toBe(`more: --starting-after ${all[2]}`);
    const second = json(await spawned(['webhook', 'deliveries', 'list', '--limit', '3', '--starting-after', all[2], '--json']));
    expect(second).toEqual({ data: expect.any(Array), hasMore: false });
    expect(second.data.map((d: any) => d.id)).toEqual([all[3]]);
  });

  it('refusals and bad flags: exit codes and the error document', async () => {
    const bad = await svc(['webhook', 'deliveries', 'list', '--status', 'lost']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error --status must be one of pending, retrying, succeeded, failed, not "lost".');
    const cursor = await svc(['webhook', 'deliveries', 'list', '--starting-after', 'nope', '--json']);
    expect(json(cursor, 1)).toEqual({ error: { code: 'validation_failed', message: expect.any(String), param: 'startingAfter' } });
    const merchantOnly = await runInProcess(['webhook', 'deliveries', 'list'], {
      cwd: dir,
      env: { ...NO_TARGET, SVC_BASE_URL: emu.url, SVC_MERCHANT_KEY: emu.keys.test.merchantKey },
    });
    expect(merchantOnly.code).toBe(1);
    expect(merchantOnly.stderr).toContain(
      `\`svc webhook deliveries list\` needs a partner key, and there is none for ${emu.url} (environment gives only a merchant key)`,
    );
  });
});

describe('webhook deliveries get', () => {
  it('human: the record, each attempt with its response body (long ones cut), the payload pretty-printed', async () => {
    const [paid] = (await api(`/v1/partner/webhook/deliveries?invoiceId=${invoiceB}&eventType=invoice.paid`)).data;
    const r = await svc(['webhook', 'deliveries', 'get', paid.id]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(new RegExp(`^id\\s+${paid.id}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^event\\s+invoice\\.paid \\[${invoiceB}-2\\]$`, 'm'));
    expect(r.stdout).toMatch(/^status\s+retrying$/m);
    expect(r.stdout).toMatch(/^#1 {2}scheduled {2}\S+Z\s+\d+ ms {2}500$/m);
    expect(r.stdout).toMatch(/^ {4}error {5}http_status: 500/m);
    // The body is cut for people, and says where the rest is.
    expect(r.stdout).toContain(`response  ${'x'.repeat(200)}… (303 characters; --json has all)`);
    expect(r.stdout).not.toContain('END');
    const payload = r.stdout.slice(r.stdout.indexOf('Payload\n') + 'Payload\n'.length);
    const detail = await api(`/v1/partner/webhook/deliveries/${paid.id}`);
    expect(payload).toBe(`${JSON.stringify(JSON.parse(detail.payload), null, 2)}\n`);
  });

  it('--json prints the API record as returned (spawned), full response bodies included', async () => {
    const [created] = (await api(`/v1/partner/webhook/deliveries?invoiceId=${invoiceA}&eventType=invoice.created`)).data;
    const doc = json(await spawned(['webhook', 'deliveries', 'get', created.id, '--json']));
    expect(doc).toEqual(await api(`/v1/partner/webhook/deliveries/${created.id}`));
    expect(doc.attempts).toEqual([expect.objectContaining({ number: 1, trigger: 'scheduled', responseStatus: 200, responseBody: 'thanks', error: null })]);
    expect(JSON.parse(doc.payload)).toMatchObject({ id: `${invoiceA}-1`, type: 'invoice.created' });
    const [paid] = (await api(`/v1/partner/webhook/deliveries?invoiceId=${invoiceB}&eventType=invoice.paid`)).data;
    expect(json(await svc(['webhook', 'deliveries', 'get', paid.id, '--json'])).attempts[0].responseBody).toBe(LONG_BODY);
  });

  it('an unknown id is a 404: exit 1, the error document with --json, the message on stderr', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const r = await svc(['webhook', 'deliveries', 'get', unknown, '--json']);
    expect(json(r, 1)).toEqual({ error: { code: 'delivery_not_found', message: expect.stringContaining(unknown) } });
    expect(r.stderr).toMatch(/^error 404 delivery_not_found: /);
    const human = await svc(['webhook', 'deliveries', 'get', unknown]);
    expect({ code: human.code, stdout: human.stdout }).toEqual({ code: 1, stdout: '' });
  });
});

describe('webhook deliveries resend', () => {
  it("prints the new attempt's result and the delivery's status; the receiver gets the same event again", async () => {
    const [created] = (await api(`/v1/partner/webhook/deliveries?invoiceId=${invoiceA}&eventType=invoice.created`)).data;
    const before = receiver.requests.length;
    const r = await svc(['webhook', 'deliveries', 'resend', created.id]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^#2 {2}manual {5}\S+Z\s+\d+ ms {2}200$/),
      '    response  thanks',
      `delivery  ${created.id} succeeded`,
    ]);
    const got = await receiver.waitFor(before + 1);
    expect(JSON.parse(got.at(-1)!.rawBody).id).toBe(`${invoiceA}-1`);
    expect(got.at(-1)!.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('--json prints the updated record (spawned); a failed attempt exits 1 with the record still on stdout', async () => {
    const [paid] = (await api(`/v1/partner/webhook/deliveries?invoiceId=${invoiceB}&eventType=invoice.paid`)).data;
    const r = await spawned(['webhook', 'deliveries', 'resend', paid.id, '--json']);
    const doc = json(r, 1);
    expect(doc).toEqual(await api(`/v1/partner/webhook/deliveries/${paid.id}`));
    expect(doc.attempts.at(-1)).toMatchObject({ number: 2, trigger: 'manual', responseStatus: 500 });
    // The schedule is not disturbed: still retrying, same next attempt.
    expect(doc).toMatchObject({ status: 'retrying', nextAttemptAt: paid.nextAttemptAt });
    const human = await svc(['webhook', 'deliveries', 'resend', paid.id]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^#3 {2}manual {5}\S+Z\s+\d+ ms {2}500\n {4}error {5}http_status: 500/);
    expect(human.stdout).toMatch(/^next attempt {2}\S+Z$/m);
    expect(human.stderr).toBe('the receiver did not accept the attempt: http_status: 500 Internal Server Error\n');
  });

  it('a disabled webhook is a 409 webhook_disabled: exit 1 with a clear message; unknown ids are 404', async () => {
    const [created] = (await api(`/v1/partner/webhook/deliveries?invoiceId=${invoiceB}&eventType=invoice.created`)).data;
    await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: `${receiver.url}/hooks`, enabled: false } });
    try {
      const before = receiver.requests.length;
      const doc = await svc(['webhook', 'deliveries', 'resend', created.id, '--json']);
      expect(json(doc, 1)).toEqual({ error: { code: 'webhook_disabled', message: expect.stringContaining('enable it') } });
      const human = await svc(['webhook', 'deliveries', 'resend', created.id]);
      expect(human.code).toBe(1);
      expect(human.stdout).toBe('');
      expect(human.stderr).toMatch(/^error 409 webhook_disabled: The webhook is disabled or not configured; enable it/);
      expect(receiver.requests.length).toBe(before);
    } finally {
      await emu.call('PUT', '/v1/partner/webhook', { key: pt, body: { url: `${receiver.url}/hooks`, enabled: true } });
    }
    const missing = await svc(['webhook', 'deliveries', 'resend', '00000000-0000-4000-8000-000000000000', '--json']);
    expect(json(missing, 1).error.code).toBe('delivery_not_found');
  });
});
