/**
 * A SIGKILLed `svc dev --memory` leaves nothing in the temporary folder (issue 40): its named
 * snapshots are kept in memory, gone with it as its data is, instead of in a private folder of
 * /tmp that a kill left behind with keys and webhook secrets in it. What a kill during a snapshot's
 * transit leaves (`svc-snapshot-<pid>-…`) is removed by the next start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { perTest } from '../helpers/per-test.js';
import { testEngine } from '../helpers/postgres-database.js';
import { tempDir } from '../helpers/temp-dir.js';

const each = perTest();
const env = (tmp: string) => ({ TMPDIR: tmp, SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_CONTROL_TOKEN: '' });

async function memoryDev(dir: string, tmp: string) {
  const dev = each.track(spawnCli(['dev', '--memory', '--port', '0', '--json'], { cwd: dir, env: env(tmp) }));
  await dev.waitForLine((l) => l.startsWith('{"type":"ready"'), 30_000);
  return dev;
}

// About --memory itself: the PostgreSQL project turns --memory into a database of its own.
describe.skipIf(testEngine() === 'postgres')('svc dev --memory and the temporary folder', () => {
  it('a SIGKILL after snapshots were saved, restored and exported leaves nothing there', async () => {
    const dir = tempDir();
    const tmp = tempDir('svc-tmpdir-');
    const dev = await memoryDev(dir, tmp);
    const svc = (...args: string[]) => runCli(args, { cwd: dir, env: env(tmp) });
    for (const args of [
      ['snapshot', 'save', 'one'],
      ['snapshot', 'save', 'two'],
      ['snapshot', 'restore', 'one'],
      ['snapshot', 'export', 'two', path.join(dir, 'two.sqlite')],
    ]) {
      const r = await svc(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect(
      JSON.parse((await svc('snapshot', 'list', '--json')).stdout)
        .data.map((s: { name: string }) => s.name)
        .sort(),
    ).toEqual(['one', 'two']);
    expect(fs.readFileSync(path.join(dir, 'two.sqlite')).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    expect(fs.readdirSync(tmp)).toEqual([]);
    await dev.stop('SIGKILL');
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('the next start removes a transit folder a kill left (a dead pid’s), and keeps a live process’s', async () => {
    const tmp = tempDir('svc-tmpdir-');
    const dead = path.join(tmp, 'svc-snapshot-99999999-AbC123');
    const live = path.join(tmp, `svc-snapshot-${process.pid}-XyZ789`);
    for (const folder of [dead, live]) {
      fs.mkdirSync(folder, { mode: 0o700 });
      fs.writeFileSync(path.join(folder, 'snapshot.sqlite'), 'keys and secrets');
    }
    await memoryDev(tempDir(), tmp);
    // Looked for once the emulator listens, just after its ready line (src/server/start.ts).
    await vi.waitFor(() => expect(fs.existsSync(dead)).toBe(false), { timeout: 5000 });
    expect(fs.existsSync(live)).toBe(true);
  });
});
