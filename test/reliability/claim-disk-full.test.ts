/**
 * Reliability: a restart on a full disk (issue 22). `svc dev` on an existing database whose disk has
 * room for SQLite's shared-memory file and nothing more: writing the claim's owner file
 * (`<db>-lock.json`) failed with "unexpected error ENOSPC" and a stack. It must be one line naming the
 * file and the cause, exit 1 (CONTRACT §8: a database that cannot be used stops `svc dev` with one line).
 *
 * The full disk is a real 1 MiB tmpfs, mounted in a mount namespace of the test's own (`unshare -m`,
 * root only), over a folder in the test's temp folder: skipped where that cannot be done.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const canMountTmpfs =
  process.getuid?.() === 0 && spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!canMountTmpfs)('svc dev restarted on a full disk', () => {
  it('exits 1 with one line naming the file it could not write, no stack', async () => {
    const dir = tempDir('svc-claim-full-');
    const first = spawnCli(['dev', '--json', '--port', '0', '--db', 'emu.sqlite'], { cwd: dir });
    await first.waitForLine((l) => l.startsWith('{"type":"ready"'), 20_000);
    expect(await first.stop('SIGINT')).toBe(0);
    const mnt = path.join(dir, 'full');
    fs.mkdirSync(mnt);
    // Room for the shared-memory file (32 KiB) is kept free until the fill is done, then given back:
    // SQLite opens the log, and the next small file finds the disk full.
    const script = [
      'mount -t tmpfs -o size=1m tmpfs "$1"',
      'cp emu.sqlite emu.sqlite-lock "$1"/',
      'dd if=/dev/zero of="$1"/spare bs=4k count=8 2>/dev/null',
      '{ dd if=/dev/zero of="$1"/fill bs=4k 2>/dev/null; true; }',
      'rm "$1"/spare',
      'cd "$1"',
      'shift',
      'exec "$@"',
    ].join(' && ');
    const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', mnt, process.execPath, BIN, 'dev', '--port', '0', '--db', 'emu.sqlite'], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error database emu.sqlite cannot be claimed: emu.sqlite-lock.json cannot be written (the disk is full)\n',
    });
    console.log(`[claim-disk-full] ${r.stderr.trim()}`);
  }, 120_000);
});
