import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type LiveCli } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `svc snapshot save|restore|list|delete|export` against a spawned `svc dev`, and `svc dev
 * --snapshot <file>` starting from the export: the shareable bug reproduction of CONTRACT §9.
 */
const running: LiveCli[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGINT')));
});

const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };

async function dev(args: string[], cwd: string) {
  const p = spawnCli(['dev', '--port', '0', '--memory', '--json', ...args], { cwd, env: NO_TARGET });
  running.push(p);
  return JSON.parse(await p.waitForLine(() => true));
}

describe('svc snapshot', () => {
  it('saves, lists, restores, exports and deletes; svc dev --snapshot starts from the export', async () => {
    const dir = tempDir();
    const ready = await dev([], dir);
    const svc = (...args: string[]) => runCli([...args, '--base-url', ready.baseUrl], { cwd: dir, env: NO_TARGET });
    const create = () => request(ready.baseUrl, 'POST', '/v1/invoices', { key: ready.test.merchantKey, body: { amount: '5.00' }, idempotencyKey: ikey() });
    const kept = (await create()).body;

    const saved = await svc('snapshot', 'save', 'seeded', '--json');
    expect(saved.code, saved.stderr).toBe(0);
    expect(JSON.parse(saved.stdout)).toMatchObject({ name: 'seeded', bytes: expect.any(Number) });
    const human = await svc('snapshot', 'list');
    expect(human.stdout.trimEnd()).toMatch(/^name\s+saved at \(emulator time\)\s+size\nseeded\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+[\d.]+ KiB$/);

    const dropped = (await create()).body;
    const restored = await svc('snapshot', 'restore', 'seeded');
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/^restored seeded \(/);
    expect((await request(ready.baseUrl, 'GET', `/v1/invoices/${dropped.id}`, { key: ready.test.merchantKey })).status).toBe(404);

    const file = path.join(dir, 'bug.sqlite');
    const exported = await svc('snapshot', 'export', 'seeded', 'bug.sqlite', '--json');
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toEqual({ name: 'seeded', file, bytes: fs.statSync(file).size });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    expect((await svc('snapshot', 'delete', 'seeded')).code).toBe(0);
    const missing = await svc('snapshot', 'restore', 'seeded', '--json');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error.code).toBe('snapshot_not_found');
    expect(JSON.parse((await svc('snapshot', 'list', '--json')).stdout)).toEqual({ data: [] });

    const other = await dev(['--snapshot', 'bug.sqlite'], dir);
    expect(other.test).toEqual(ready.test);
    const res = await request(other.baseUrl, 'GET', `/v1/invoices/${kept.id}`, { key: other.test.merchantKey });
    expect(res.status).toBe(200);
  });

  it('a bad name is refused by the emulator with validation_failed; no emulator is exit 3', async () => {
    const dir = tempDir();
    const ready = await dev([], dir);
    const bad = await runCli(['snapshot', 'save', '../x', '--json', '--base-url', ready.baseUrl], { cwd: dir, env: NO_TARGET });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: 'validation_failed', param: 'name' });
    const none = await runCli(['snapshot', 'list', '--base-url', 'http://127.0.0.1:9'], { cwd: dir, env: NO_TARGET });
    expect(none.code).toBe(3);
  });

  it('svc dev --snapshot with a file that is not a snapshot: one line naming it, exit 1, the file unchanged', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'hello\n');
    const r = await runCli(['dev', '--port', '0', '--memory', '--snapshot', 'notes.txt'], { cwd: dir, env: NO_TARGET });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(path.join(dir, 'notes.txt'));
    expect(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('hello\n');
  });
});
