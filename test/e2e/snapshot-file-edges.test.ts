/**
 * `svc dev --snapshot <file>` at the edges (CONTRACT §8): a named pipe, a missing file, a folder or
 * /dev/zero is one line and exit 1, promptly, leaving no temporary folder; the leftovers of a killed
 * save or import are removed at the next start; an imported file's webhook URLs are in the banner
 * and the ready event, and what it left pending is not sent.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import { type LiveCli, runCli, spawnCli } from '../helpers/cli.js';
import { ikey, startTestEmulator } from '../helpers/emulator.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };
const running: LiveCli[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGINT')));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** A folder with its own TMPDIR: what svc leaves in the temporary folder is seen, and only ours. */
function workspace(): { dir: string; tmp: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir();
  const tmp = path.join(dir, 'tmp');
  fs.mkdirSync(tmp);
  return { dir, tmp, env: { ...NO_TARGET, TMPDIR: tmp } };
}

/** The pid of a process that has exited: whatever it left behind is a leftover. */
function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  return new Promise((resolve) => child.on('exit', () => resolve(child.pid!)));
}

describe('svc dev --snapshot with something that is not a snapshot file', () => {
  const cases: [string, (dir: string) => string, RegExp][] = [
    [
      'a named pipe',
      (dir) => {
        execFileSync('mkfifo', [path.join(dir, 'pipe')]);
        return 'pipe';
      },
      /is not a regular file/,
    ],
    ['a missing file', () => 'missing.sqlite', /does not exist/],
    [
      'a folder',
      (dir) => {
        fs.mkdirSync(path.join(dir, 'folder'));
        return 'folder';
      },
      /is a folder/,
    ],
    ['/dev/zero', () => '/dev/zero', /is not a regular file/],
    [
      'a file over 1 GiB (sparse: no disk used)',
      (dir) => {
        const file = path.join(dir, 'huge.sqlite');
        fs.writeFileSync(file, '');
        fs.truncateSync(file, 1024 ** 3 + 1);
        return 'huge.sqlite';
      },
      /is larger than 1 GiB/,
    ],
  ];

  it.each(cases)('%s: one line, exit 1, no stack, no temporary folder left', async (_what, make, why) => {
    const { dir, tmp, env } = workspace();
    const arg = make(dir);
    // A pipe used to block the start for good: the ceiling is generous, the answer must come well before it.
    const r = await runCli(['dev', '--port', '0', '--memory', '--snapshot', arg], { cwd: dir, env, timeoutMs: 15_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(why);
    expect(r.stderr).toContain(path.isAbsolute(arg) ? arg : path.join(dir, arg));
    expect(r.stderr).not.toMatch(/unexpected|copyfile|\n\s+at /);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});

describe('leftovers of a killed svc', () => {
  it('a save’s .partial-* file and an import’s temporary folder are removed at the next start; a live process’s are kept', async () => {
    const { dir, tmp, env } = workspace();
    const gone = await deadPid();
    const snapshots = path.join(dir, 'db.sqlite-snapshots');
    fs.mkdirSync(snapshots);
    const partial = path.join(snapshots, `.partial-${gone}-1767225600000-k3y9.sqlite`);
    const livePartial = path.join(snapshots, `.partial-${process.pid}-1767225600000-k3y9.sqlite`);
    for (const f of [partial, livePartial]) fs.writeFileSync(f, 'half a backup');
    const importCopy = path.join(tmp, `svc-snapshot-${gone}-AbC123`);
    const liveCopy = path.join(tmp, `svc-snapshot-${process.pid}-AbC123`);
    for (const d of [importCopy, liveCopy]) {
      fs.mkdirSync(d);
      fs.writeFileSync(path.join(d, 'snapshot.sqlite'), 'copy');
    }
    const oldEmpty = path.join(tmp, 'svc-snapshots-Xy12Zq');
    fs.mkdirSync(oldEmpty);

    const file = await exportWithPendingDelivery(await receiver());
    const p = spawnCli(['dev', '--port', '0', '--db', 'db.sqlite', '--json', '--snapshot', file], { cwd: dir, env });
    running.push(p);
    await p.waitForLine((l) => l.includes('"type":"ready"'));
    expect(fs.existsSync(partial)).toBe(false);
    expect(fs.existsSync(importCopy)).toBe(false);
    expect(fs.existsSync(oldEmpty)).toBe(false);
    expect(fs.existsSync(livePartial)).toBe(true);
    expect(fs.existsSync(liveCopy)).toBe(true);
  });
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** An export whose webhook points at `r`, its one delivery made pending again (as a crafted file could). */
async function exportWithPendingDelivery(r: Receiver): Promise<string> {
  const emu = await startTestEmulator({ clock: manualClock(Date.UTC(2030, 0, 1)) });
  try {
    await emu.call('PUT', '/v1/partner/webhook', { key: emu.keys.test.partnerKey, body: { url: r.url, secret: 'whsec_snapshot_test_0123456789' } });
    await emu.call('POST', '/v1/invoices', { key: emu.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '10.00' } });
    await r.waitFor(1);
    await emu.snapshot('share');
    const file = path.join(tempDir(), 'bug-report.sqlite');
    fs.writeFileSync(file, Buffer.from(await (await fetch(`${emu.url}/__emulator/snapshots/share/file`)).arrayBuffer()));
    const db = new Database(file);
    db.prepare("UPDATE deliveries SET status = 'pending', next_attempt_at = 0, attempt_count = 0, scheduled_attempts = 0").run();
    db.close();
    return file;
  } finally {
    await emu.stop();
  }
}

describe('the URLs an imported file brought', () => {
  it('are named by the ready event and the banner; its pending delivery is held', async () => {
    const r = await receiver();
    const file = await exportWithPendingDelivery(r);
    const { dir, env } = workspace();

    const json = spawnCli(['dev', '--port', '0', '--memory', '--json', '--snapshot', file], { cwd: dir, env });
    running.push(json);
    const ready = JSON.parse(await json.waitForLine((l) => l.includes('"type":"ready"')));
    expect(ready.snapshot).toEqual({ file, webhookUrls: [r.url], heldDeliveries: 1 });

    const human = spawnCli(['dev', '--port', '0', '--memory', '--snapshot', file], { cwd: dir, env });
    running.push(human);
    await human.waitForLine((l) => l.includes('Press Ctrl-C'));
    const banner = human.lines.join('\n');
    expect(banner).toMatch(new RegExp(`Its webhook URLs\\s+${r.url.replaceAll('.', '\\.')}`));
    expect(banner).toMatch(/Held deliveries\s+1 \(not sent until you resend them/);
    expect(banner).toMatch(/Its webhooks\s+disabled until you enable them: svc webhook set --enable/);
    // Both emulators were up and serving before this point: nothing the file carried reached the receiver.
    expect((await fetch(`${ready.baseUrl}/__emulator/health`)).status).toBe(200);
    expect(r.requests).toHaveLength(1);
    // Its configuration arrived disabled: a new event goes nowhere until the user enables it.
    const svc = (...args: string[]) =>
      runCli(args, {
        cwd: dir,
        env: { ...env, SVC_BASE_URL: ready.baseUrl, SVC_PARTNER_KEY: ready.test.partnerKey, SVC_MERCHANT_KEY: ready.test.merchantKey },
      });
    expect(JSON.parse((await svc('webhook', 'get', '--json')).stdout)).toMatchObject({ url: r.url, enabled: false });
    expect((await svc('trigger', 'invoice.created', '--json')).code).toBe(0);
    expect((await svc('webhook', 'set', '--enable', '--json')).code).toBe(0);
    expect((await svc('trigger', 'invoice.created', '--json')).code).toBe(0);
    await r.waitFor(2);
    expect(r.requests).toHaveLength(2);
  });
});

describe('a crafted file', () => {
  it('with a 50 MB referenceId, or a NUL in a text column: one line, exit 1, nothing served', async () => {
    const r = await receiver();
    for (const [value, why] of [
      ['x'.repeat(50 * 1024 * 1024), 'invoices.reference_id is 52,428,800 characters long (the limit is 255)'],
      ['order\u00001', 'invoices.reference_id holds the character U+0000 (NUL)'],
    ] as const) {
      const file = await exportWithPendingDelivery(r);
      const db = new Database(file);
      db.prepare('UPDATE invoices SET reference_id = ?').run(value);
      db.close();
      const { dir, env } = workspace();
      const res = await runCli(['dev', '--port', '0', '--memory', '--snapshot', file], { cwd: dir, env, timeoutMs: 15_000 });
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr.trim().split('\n')).toEqual([`error snapshot ${file} holds a value svc's API would refuse: ${why}; nothing was changed`]);
    }
  });

  it('with a never-ending view in place of the migration record: one line, exit 1, promptly, nothing sent', async () => {
    const r = await receiver();
    const file = await exportWithPendingDelivery(r);
    const db = new Database(file);
    db.exec(`DROP TABLE kysely_migration;
      CREATE VIEW kysely_migration AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT '0001-initial' AS name FROM n`);
    db.close();
    const { dir, env } = workspace();
    const res = await runCli(['dev', '--port', '0', '--memory', '--snapshot', file], { cwd: dir, env, timeoutMs: 15_000 });
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr.trim().split('\n')).toEqual([`error snapshot ${file} is not an svc snapshot (it has no record of svc migrations); nothing was changed`]);
    expect(r.requests).toHaveLength(1);
  });
});
