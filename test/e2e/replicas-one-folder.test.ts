/**
 * Several replicas of a shared sandbox started in one folder (issue 38, carried into issue 40): each
 * `svc dev --database <url>` records itself (the first in `.svc/dev.json`, the next in
 * `.svc/dev.<pid>.json`, both mode 0600), so that commands in the folder use any live one: after
 * replica A died, `svc invoices list` said "no service to talk to" although replica B, same folder,
 * same database, was running. Stale files are ignored, and removed by the next `svc dev`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { perTest } from '../helpers/per-test.js';
import { startPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';

const server = await startPostgres();
const each = perTest();
const env = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_CONTROL_TOKEN: '', SVC_PROFILE: '' };

async function replica(dir: string, database: string) {
  const cli = each.track(spawnCli(['dev', '--port', '0', '--json', '--database', database], { cwd: dir, env }));
  const ready = JSON.parse(await cli.waitForLine((l) => l.startsWith('{"type":"ready"'), 30_000)) as { baseUrl: string };
  return { cli, url: ready.baseUrl, pid: cli.child.pid! };
}

describe('replicas started in one folder', () => {
  it('are each findable: commands use the first while it runs, then another live one; stale files are ignored and cleaned', async () => {
    const dir = tempDir();
    const database = await server.createDatabase();
    const a = await replica(dir, database);
    const b = await replica(dir, database);
    const state = path.join(dir, '.svc');
    const own = (pid: number) => path.join(state, `dev.${pid}.json`);
    expect(JSON.parse(fs.readFileSync(path.join(state, 'dev.json'), 'utf8')).pid).toBe(a.pid);
    expect(JSON.parse(fs.readFileSync(own(b.pid), 'utf8')).pid).toBe(b.pid);
    expect(fs.statSync(own(b.pid)).mode & 0o777).toBe(0o600);
    expect(b.cli.stderr()).toContain(`.svc/dev.${b.pid}.json`);

    const svc = (...args: string[]) => runCli(args, { cwd: dir, env });
    const target = async () => JSON.parse((await svc('status', '--json')).stdout).baseUrl as string | null;
    expect(await target()).toBe(a.url);
    const created = await svc('invoices', 'create', '--amount', '2.00', '--json');
    expect(created.code, created.stderr).toBe(0);

    // A dies without cleaning up: B, same folder, same database, answers the folder's commands.
    await a.cli.stop('SIGKILL');
    expect(fs.existsSync(path.join(state, 'dev.json'))).toBe(true);
    expect(await target()).toBe(b.url);
    const listed = await svc('invoices', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).data.map((i: { id: string }) => i.id)).toEqual([JSON.parse(created.stdout).id]);

    // B dies too: nothing runs, and the commands say so (the stale files are no target).
    await b.cli.stop('SIGKILL');
    const none = await svc('invoices', 'list', '--json');
    expect(none.code).toBe(1);
    expect(none.stdout + none.stderr).toContain('no service to talk to');

    // The next svc dev takes dev.json over and removes the dead replica's file.
    const c = await replica(dir, database);
    expect(JSON.parse(fs.readFileSync(path.join(state, 'dev.json'), 'utf8')).pid).toBe(c.pid);
    expect(fs.existsSync(own(b.pid))).toBe(false);
    expect(await target()).toBe(c.url);

    // Stopped cleanly, each removes its own file only.
    const d = await replica(dir, database);
    expect(fs.existsSync(own(d.pid))).toBe(true);
    expect(await d.cli.stop('SIGINT')).toBe(0);
    expect(fs.existsSync(own(d.pid))).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(state, 'dev.json'), 'utf8')).pid).toBe(c.pid);
    expect(await c.cli.stop('SIGINT')).toBe(0);
    expect(fs.existsSync(state)).toBe(false);
  });
});
