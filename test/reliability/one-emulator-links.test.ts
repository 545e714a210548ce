/**
 * Reliability: one emulator per database *file*, whatever the path (issue 22; CONTRACT §8 "One
 * emulator per database": the claim follows the file, not its name).
 *
 * Before the fix a hard link of a served database started a second emulator with a WAL of its own:
 * 300 creates answered 201, 150 reached the file, and `PRAGMA integrity_check` failed. Here one
 * `svc dev` serves a database while 300 creates go through it and, at the same time, `svc dev` is
 * started again and again through a hard link in the same folder, a hard link in another folder, a
 * symlink and (when this machine lets root use `unshare -m`) a single-file bind mount, as a container
 * would mount it. Every one of those starts exits 1 with one line; none writes a `.svc/dev.json`; then
 * every acknowledged create is in the file and the file passes `PRAGMA integrity_check`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, type LiveCli, runCli, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { ReadyEvent } from './lib/dev-process.js';
import { PlainClient } from './lib/plain-client.js';

const CREATES = 300;
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');

/** Root with mount namespaces: a single-file bind mount can be made the way a container makes one. */
const canBindMount = process.getuid?.() === 0 && spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind /dev/null /dev/zero'], { stdio: 'ignore' }).status === 0;

const spawned: LiveCli[] = [];
afterEach(async () => {
  await Promise.all(spawned.splice(0).map((p) => p.stop('SIGKILL')));
});

/** `svc dev` on the database through `db`, run from `cwd`; through a bind mount of `bindFrom` when given. */
function devThrough(cwd: string, db: string, bindFrom?: string) {
  const args = ['dev', '--json', '--port', '0', '--db', db];
  if (!bindFrom) return runCli(args, { cwd, timeoutMs: 30_000 });
  const script = `mount --bind "$1" "$2" && shift 2 && exec "$@"`;
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', bindFrom, db, process.execPath, BIN, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    resolve({ code: r.status, stderr: r.stderr });
  });
}

describe('a served database reached through another path', () => {
  it('refuses every second emulator (hard links, symlink, bind mount); no acknowledged create is lost; the file stays sound', async () => {
    const dir = tempDir('svc-links-');
    const elsewhere = tempDir('svc-links-elsewhere-');
    const db = path.join(dir, 'emu.sqlite');
    const first = spawnCli(['dev', '--json', '--port', '0', '--db', 'emu.sqlite'], { cwd: dir });
    spawned.push(first);
    const ready = JSON.parse(await first.waitForLine((l) => l.startsWith('{"type":"ready"'), 20_000)) as ReadyEvent;
    const devJson = fs.readFileSync(path.join(dir, '.svc', 'dev.json'), 'utf8');

    fs.linkSync(db, path.join(dir, 'hard.sqlite'));
    fs.linkSync(db, path.join(elsewhere, 'emu.sqlite'));
    fs.symlinkSync(db, path.join(dir, 'sym.sqlite'));
    const bindTarget = path.join(tempDir('svc-links-bind-'), 'emu.sqlite');
    fs.writeFileSync(bindTarget, '');
    // The owner is named when its owner file can be found from the path (same folder, symlink target).
    const named = new RegExp(
      `^error database (hard|sym)\\.sqlite is in use by svc dev \\(pid ${first.child.pid}, ${ready.baseUrl.replace(/\./g, '\\.')}\\)\\n$`,
    );
    const anonymous =
      /^error database \S+ is in use by another process \(an svc dev through another path to this file, or a program such as sqlite3 that has it open\)\n$/;
    const attempts: Array<{ what: string; run: () => Promise<{ code: number | null; stderr: string }>; line: RegExp }> = [
      { what: 'hard link, same folder', run: () => devThrough(dir, 'hard.sqlite'), line: named },
      { what: 'symlink', run: () => devThrough(dir, 'sym.sqlite'), line: named },
      { what: 'hard link, other folder', run: () => devThrough(elsewhere, 'emu.sqlite'), line: anonymous },
    ];
    if (canBindMount) attempts.push({ what: 'bind mount', run: () => devThrough(path.dirname(bindTarget), bindTarget, db), line: anonymous });

    const client = new PlainClient(ready.baseUrl);
    let acknowledged = 0;
    let creating = true;
    const creates = (async () => {
      try {
        for (let i = 0; i < CREATES; i += 10) {
          const replies = await Promise.all(
            Array.from({ length: 10 }, (_, j) =>
              client.call('POST', '/v1/invoices', { key: ready.test.merchantKey, idempotencyKey: `link-${i + j}`, body: { amount: '5.00' } }),
            ),
          );
          for (const r of replies) {
            if (!r.cut && r.status === 201) acknowledged += 1;
            else if (!r.cut) throw new Error(`create answered ${r.status}: ${r.text}`);
          }
        }
      } finally {
        creating = false;
      }
    })();
    const refused: Record<string, number> = {};
    // At least two rounds of every kind, and keep trying for as long as the creates run.
    for (let round = 0; round < 2 || creating; round++) {
      for (const attempt of attempts) {
        const r = await attempt.run();
        expect(r.code, `${attempt.what}: ${r.stderr}`).toBe(1);
        expect(r.stderr, attempt.what).toMatch(attempt.line);
        refused[attempt.what] = (refused[attempt.what] ?? 0) + 1;
      }
    }
    await creates;
    await client.close();
    expect(acknowledged).toBe(CREATES);
    // Nobody refused wrote or deleted a dev.json: the first one's is as it wrote it, and no other exists.
    expect(fs.readFileSync(path.join(dir, '.svc', 'dev.json'), 'utf8')).toBe(devJson);
    expect(fs.existsSync(path.join(elsewhere, '.svc', 'dev.json'))).toBe(false);
    expect(await first.stop('SIGINT')).toBe(0);

    const sqlite = new Database(db, { readonly: true });
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect((sqlite.prepare('SELECT count(*) AS n FROM invoices').get() as { n: number }).n).toBe(acknowledged);
    sqlite.close();
    console.log(
      `[one-emulator-links] ${Object.entries(refused)
        .map(([what, n]) => `${what}: ${n} refused`)
        .join(
          '; ',
        )}${canBindMount ? '' : ' (no bind mount: not root or no unshare -m)'}; ${acknowledged} creates acknowledged, ${acknowledged} in the file, integrity_check ok`,
    );
  }, 300_000);
});
