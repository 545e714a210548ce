/**
 * The svc-emulator image (docs/container.md), built by this project's global setup and run as users
 * run it: a published port on 127.0.0.1, a volume for /data, webhooks to a receiver on the host.
 * Skipped as a whole, with one line from the setup, where neither podman nor docker works.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/index.js';
import { cleanup, engine, exitCodeOf, HOST_ALIAS, healthy, IMAGE, newNetwork, newVolume, runOnce, startContainer, until } from '../helpers/container.js';
import { ROOT } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

const SECRET = 'container-secret-0123456789';

/** The NDJSON ready event: svc dev logs JSON without a terminal (the entrypoint adds --json). */
async function readyOf(name: string): Promise<{ test: { partnerKey: string; merchantKey: string; merchantId: string } }> {
  return until(`the ready line of ${name}`, async () => {
    const line = (await engine(['logs', name])).stdout.split('\n').find((l) => l.startsWith('{"type":"ready"'));
    return line ? JSON.parse(line) : undefined;
  });
}

async function stopWithSigterm(name: string): Promise<{ code: number; ms: number }> {
  const started = performance.now();
  const kill = await engine(['kill', '--signal', 'TERM', name]);
  expect(kill.code, kill.stderr).toBe(0);
  const code = await until(`${name} to exit`, async () => {
    const c = await exitCodeOf(name);
    return c === undefined ? undefined : { c };
  });
  return { code: code.c, ms: performance.now() - started };
}

describe.skipIf(!IMAGE)('the svc-emulator image', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    // On every address: the container reaches it through the engine's name for the host.
    receiver = await startReceiver({}, { host: '0.0.0.0' });
  });
  afterAll(async () => {
    await receiver?.close();
    await cleanup();
  });

  it('serves the API on its published port as a non-root user, delivers signed webhooks to the host, keeps its data in the volume across containers, and stops on SIGTERM with exit 0', async () => {
    const volume = newVolume();
    const first = await startContainer(['-v', `${volume}:/data`]);
    await healthy(first.url);
    const { test } = await readyOf(first.name);

    const uid = await engine(['exec', first.name, 'id', '-u']);
    expect(uid.stdout.trim()).toBe('10001');
    const pid1 = await engine(['exec', first.name, 'cat', '/proc/1/status']);
    expect(pid1.stdout).toMatch(/^Uid:\s+10001\s/m);
    const health = await engine(['healthcheck', 'run', first.name]);
    expect(health.code, health.stderr).toBe(0);
    // The probe can fail: nothing listens on port 1.
    expect((await engine(['exec', '-e', 'SVC_PORT=1', first.name, '/usr/local/bin/svc-healthcheck'])).code).not.toBe(0);

    // A sub-merchant, the webhook to the host, an invoice paid in full.
    const merchant = await request(first.url, 'POST', '/v1/partner/merchants', {
      key: test.partnerKey,
      idempotencyKey: ikey(),
      body: { externalTenantId: 'container-tenant', email: 'c@example.com', name: 'Container shop' },
    });
    expect(merchant.status, merchant.text).toBe(201);
    const hook = await request(first.url, 'PUT', '/v1/partner/webhook', {
      key: test.partnerKey,
      body: { url: `http://${HOST_ALIAS}:${receiver.port}/hooks`, secret: SECRET, enabled: true },
    });
    expect(hook.status, hook.text).toBe(200);
    const invoice = await request(first.url, 'POST', '/v1/partner/invoices', {
      key: test.partnerKey,
      idempotencyKey: ikey(),
      body: { merchantId: merchant.body.merchantId, amount: '12.50', referenceId: 'order-1' },
    });
    expect(invoice.status, invoice.text).toBe(201);
    expect(invoice.body.checkoutUrl).toBe(`http://127.0.0.1:4747/checkout/${invoice.body.id}`);
    const pay = await request(first.url, 'POST', `/v1/test_helpers/invoices/${invoice.body.id}/payments`, { key: test.partnerKey, body: {} });
    expect(pay.status, pay.text).toBe(201);

    const [created, paid] = await receiver.waitFor(2, 30_000);
    const events = [created!, paid!].map((r) => verifyWebhook(r.rawBody, r.headers['x-service-signature'] as string, SECRET));
    expect(events.map((e) => e.type)).toEqual(['invoice.created', 'invoice.paid']);
    expect(events.every((e) => e.data.invoiceId === invoice.body.id || (e.data as { id?: string }).id === invoice.body.id)).toBe(true);
    expect(paid!.headers['user-agent']).toMatch(/^svc-emulator\//);

    // SIGTERM to PID 1 (node): a clean stop, exit 0, the stop logged.
    const stopped = await stopWithSigterm(first.name);
    expect(stopped.code).toBe(0);
    expect((await engine(['logs', first.name])).stdout).toContain('{"type":"stopped","signal":"SIGTERM"}');
    console.log(`container stopped ${Math.round(stopped.ms)} ms after SIGTERM`);
    await engine(['rm', first.name]);

    // A new container on the same volume: the same keys, merchant and invoice.
    const second = await startContainer(['-v', `${volume}:/data`]);
    await healthy(second.url);
    expect((await readyOf(second.name)).test).toEqual(test);
    const again = await request(second.url, 'GET', `/v1/partner/invoices/${invoice.body.id}`, { key: test.partnerKey });
    expect(again.status, again.text).toBe(200);
    expect(again.body.status).toBe('PAID');
    expect(again.body.referenceId).toBe('order-1');
  });

  it('SVC_MEMORY keeps nothing; SVC_CONTROL_TOKEN guards the control plane on the published port, where loopback is not the user', async () => {
    const token = 'ctl-0123456789abcdef';
    const ctr = await startContainer(['-e', 'SVC_MEMORY=1', '-e', `SVC_CONTROL_TOKEN=${token}`]);
    const refused = await until('the emulator to answer', async () => {
      const res = await request(ctr.url, 'GET', '/__emulator/keys').catch(() => undefined);
      return res && res.status !== 0 ? res : undefined;
    });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe('control_plane_forbidden');
    const keys = await request(ctr.url, 'GET', '/__emulator/keys', { headers: { authorization: `Bearer ${token}` } });
    expect(keys.status, keys.text).toBe(200);
    // The image's health check runs inside the container, on loopback.
    expect((await engine(['healthcheck', 'run', ctr.name])).code).toBe(0);
    const ls = await engine(['exec', ctr.name, 'ls', '-A', '/data']);
    expect(ls.stdout.trim()).toBe('');
  });

  it('answers another container by its service name once SVC_ALLOWED_HOSTS names it, and refuses other names', async () => {
    const network = await newNetwork();
    const ctr = await startContainer([
      '--network',
      network,
      '--network-alias',
      'svc',
      '--network-alias',
      'other',
      '-e',
      'SVC_MEMORY=1',
      '-e',
      'SVC_ALLOWED_HOSTS=svc',
    ]);
    await healthy(ctr.url);
    const script =
      "Promise.all(['svc', 'other'].map((h) => fetch('http://' + h + ':4747/v1/partner/merchants').then(async (r) => [h, r.status, (await r.json()).error?.code]))).then((r) => console.log(JSON.stringify(r)))";
    const res = await runOnce(['--rm', '--network', network], ['node', '-e', script]);
    expect(res.code, res.stderr).toBe(0);
    // svc: the API answers (401: no key sent); other: refused before anything else (CONTRACT §8).
    expect(JSON.parse(res.stdout)).toEqual([
      ['svc', 401, 'unauthorized'],
      ['other', 403, 'host_not_allowed'],
    ]);
  });

  it('applies a fixtures file mounted into the container (SVC_FIXTURES)', async () => {
    const dir = tempDir('svc-ctr-');
    fs.copyFileSync(path.join(ROOT, 'templates/svc.fixtures.yaml'), path.join(dir, 'fixtures.yaml'));
    fs.chmodSync(dir, 0o755);
    const ctr = await startContainer(['-e', 'SVC_MEMORY=1', '-e', 'SVC_FIXTURES=/fixtures/fixtures.yaml', '-v', `${dir}:/fixtures:ro`]);
    await healthy(ctr.url);
    const { test } = await readyOf(ctr.name);
    const listed = await until('the fixtures invoices', async () => {
      const res = await request(ctr.url, 'GET', '/v1/partner/invoices', { key: test.partnerKey });
      return res.body?.data?.length > 0 ? res : undefined;
    });
    expect(listed.body.data.map((i: { referenceId: string }) => i.referenceId)).toContain('order-1001');
  });

  it('prints the human banner under a terminal (-t), and stops on Ctrl-C (SIGINT to PID 1) with exit 0', async () => {
    const ctr = await startContainer(['-t', '-e', 'SVC_MEMORY=1']);
    await healthy(ctr.url);
    expect((await engine(['logs', ctr.name])).stdout).toContain('svc emulator is running');
    expect((await engine(['kill', '--signal', 'INT', ctr.name])).code).toBe(0);
    const code = await until(`${ctr.name} to exit`, async () => {
      const c = await exitCodeOf(ctr.name);
      return c === undefined ? undefined : { c };
    });
    expect(code.c).toBe(0);
    expect((await engine(['logs', ctr.name])).stdout).toContain('Stopping (SIGINT)');
  });

  it('runs svc exec: a throwaway emulator for one command, exiting with its code', async () => {
    const script = "fetch(process.env.SVC_BASE_URL + '/__emulator/health').then((r) => process.exit(r.status === 200 && process.env.SVC_PARTNER_KEY ? 7 : 1))";
    const res = await runOnce(['--rm'], ['svc', 'exec', '--', 'node', '-e', script]);
    expect(res.code, res.stderr).toBe(7);
  });

  // Issue 40: both run svc as pid 1, and the second was told "in use by svc dev in this process".
  it('a second container on the same volume is refused naming another container, not this process', async () => {
    const volume = newVolume();
    const first = await startContainer(['-v', `${volume}:/data`, '--hostname', 'svc-first']);
    await healthy(first.url);
    const second = await startContainer(['-v', `${volume}:/data`, '--hostname', 'svc-second']);
    const code = await until('the second container to exit', async () => {
      const c = await exitCodeOf(second.name);
      return c === undefined ? undefined : { c };
    });
    const logs = await engine(['logs', second.name]);
    expect(code.c, logs.stdout + logs.stderr).toBe(1);
    expect(logs.stdout + logs.stderr).toContain(
      'database /data/emulator.sqlite is in use by svc dev in another container or on another host (svc-first, its pid 1, ',
    );
    expect(logs.stdout + logs.stderr).not.toContain('in this process');
    expect((await stopWithSigterm(first.name)).code).toBe(0);
  });

  // Issue 40: a snapshot save answered 500 internal_error there (EROFS from mkdtemp).
  it('with a read-only /tmp, a snapshot save answers 507 temporary_folder_unavailable naming it; the emulator serves on', async () => {
    const ctr = await startContainer(['-e', 'SVC_MEMORY=1', '--tmpfs', '/tmp:ro']);
    await healthy(ctr.url);
    const saved = await request(ctr.url, 'POST', '/__emulator/snapshots', { body: { name: 'before' } });
    expect(saved.status, saved.text).toBe(507);
    expect(saved.body.error.code).toBe('temporary_folder_unavailable');
    expect(saved.body.error.message).toContain('/tmp (it is on a read-only file system)');
    expect(saved.body.error.message).toContain('TMPDIR');
    expect((await request(ctr.url, 'GET', '/__emulator/health')).status).toBe(200);
  });

  it('refuses a second emulator on a database file bind-mounted alone into two containers, and the file stays sound (CONTRACT §8)', async () => {
    const dir = tempDir('svc-ctr-');
    const file = path.join(dir, 'emulator.sqlite');
    fs.writeFileSync(file, '', { mode: 0o600 });
    fs.chownSync(file, 10001, 10001);
    const mount = ['-v', `${file}:/data/emulator.sqlite`];
    const first = await startContainer(mount);
    await healthy(first.url);
    const { test } = await readyOf(first.name);
    const made = await request(first.url, 'POST', '/v1/invoices', { key: test.merchantKey, idempotencyKey: ikey(), body: { amount: '3.00' } });
    expect(made.status, made.text).toBe(201);

    // The second either exits (refused) or comes up (the claim did not follow the file): whichever first.
    const second = await startContainer(mount);
    const outcome = await until('the second container to exit or answer', async () => {
      const code = await exitCodeOf(second.name);
      if (code !== undefined) return { exited: code };
      const res = await fetch(`${second.url}/__emulator/health`).catch(() => undefined);
      return res?.status === 200 ? { answered: true } : undefined;
    });
    const logs = await engine(['logs', second.name]);
    expect(outcome, `the second emulator started on the same file:\n${logs.stdout}${logs.stderr}`).toEqual({ exited: 1 });
    // Another container is another pid namespace: its owner file is not in reach, so the line names
    // "another process" rather than a pid (docs/api.md, the database file).
    expect(logs.stdout + logs.stderr).toMatch(/database \/data\/emulator\.sqlite is in use by (svc dev|another process)/);

    // The first one is unharmed, and after its clean stop the file holds everything, intact.
    const still = await request(first.url, 'GET', `/v1/invoices/${made.body.id}`, { key: test.merchantKey });
    expect(still.status, still.text).toBe(200);
    expect((await stopWithSigterm(first.name)).code).toBe(0);
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.prepare('SELECT COUNT(*) AS n FROM invoices WHERE id = ?').get(made.body.id)).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });
});
