/**
 * `svc dev` refusing to start, from the outside (CONTRACT §8): a database file it must not or cannot
 * use, a database another `svc dev` holds, a port in use. Each is exit 1 with exactly one line on
 * stderr naming the file (or port) and the cause, no stack trace, and the file unchanged (hash before
 * and after). Also: what it creates is mode 0600, and the ready event and banner name the address
 * bound and the config file in use.
 *
 * Permission cases need a user the permissions apply to: when the tests run as root, those runs
 * switch to `nobody`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStore } from '../../src/store/sqlite/store.js';
import { BIN, spawnCli, type LiveCli } from '../helpers/cli.js';
import { packageFor } from '../helpers/readable-package.js';
import { tempDir } from '../helpers/temp-dir.js';

const running: LiveCli[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});

const root = tempDir('svc-dev-safety-');
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** The Node that runs svc as `nobody`: ours, unless it sits where nobody cannot reach it. */
let nobodyNode = process.execPath;
/** The svc it runs: the clone's, unless the clone sits where nobody cannot read it (packageFor). */
let nobodyBin = BIN;
beforeAll(() => {
  // Reachable by `nobody` too (permission cases run as it when the tests run as root), through the
  // run's isolation folders above it (mkdtemp makes them 0700): execute (search) rights only.
  fs.chmodSync(root, 0o755);
  const top = path.dirname(inject('svcTestRoot'));
  for (let dir = path.dirname(root); dir.startsWith(`${top}${path.sep}`); dir = path.dirname(dir)) {
    fs.chmodSync(dir, fs.statSync(dir).mode | 0o111);
  }
  // A Node installed under root's home (scripts/install-node.sh's cache in ~/.cache) cannot be run by
  // `nobody`: /root is private. The binary itself is world-executable, so a hard link in this folder
  // (a copy across file systems) is.
  if (isRoot && spawnSync(process.execPath, ['-e', '0'], { uid: NOBODY, gid: NOBODY }).status !== 0) {
    nobodyNode = path.join(root, 'node');
    try {
      fs.linkSync(process.execPath, nobodyNode);
    } catch {
      fs.copyFileSync(process.execPath, nobodyNode);
      fs.chmodSync(nobodyNode, 0o755);
    }
  }
  // A clone in a private folder (mode 0700, as `mktemp -d` and /root are): a copy nobody can read.
  if (isRoot) nobodyBin = packageFor(root, nobodyNode, { uid: NOBODY, gid: NOBODY });
});

/** A cache folder `nobody` may write in, outside every case's folder. */
function nobodyCache(): string {
  const dir = path.join(root, 'nobody-cache');
  fs.mkdirSync(dir, { recursive: true, mode: 0o777 });
  fs.chmodSync(dir, 0o777);
  return dir;
}

/** A fresh folder the emulator may write in (also as `nobody`). */
function freshDir(): string {
  const dir = fs.mkdtempSync(path.join(root, 'case-'));
  fs.chmodSync(dir, 0o777);
  return dir;
}

/** `svc dev …` to completion (it should refuse to start), optionally as an unprivileged user. */
function runDev(args: string[], cwd: string, options: { unprivileged?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const asNobody = options.unprivileged && isRoot ? { uid: NOBODY, gid: NOBODY } : {};
    // `nobody` cannot look into root's home: give it one of its own (or the run warns about it).
    // Its compile cache (src/runtime.ts) goes to a cache folder of its own, not into the case's folder.
    const home = 'uid' in asNobody ? { HOME: cwd, XDG_CACHE_HOME: nobodyCache() } : {};
    const env = { ...process.env, NO_COLOR: '1', ...home, ...options.env };
    const child = spawn('uid' in asNobody ? nobodyNode : process.execPath, ['uid' in asNobody ? nobodyBin : BIN, 'dev', '--port', '0', ...args], {
      cwd,
      env,
      ...asNobody,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // One that does start is stopped after a while; the test then sees it was not refused.
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** A real svc database (as the emulator leaves it after a clean stop). */
async function svcDatabase(file: string): Promise<void> {
  (await openStore({ file })).close();
}

/** Runs `svc dev --db <name>` in the file's folder; asserts the one-line refusal and an untouched file. */
async function expectRefused(file: string, cause: RegExp, options: { unprivileged?: boolean } = {}) {
  const dir = path.dirname(file);
  const name = path.basename(file);
  const isDir = fs.statSync(file).isDirectory();
  const before = isDir ? null : sha(file);
  const listing = fs.readdirSync(dir).sort();
  const { code, stdout, stderr } = await runDev(['--db', name], dir, options);
  expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^error database ${name.replace(/\./g, '\\.')} ${cause.source}`));
  expect(stderr).not.toMatch(/\n\s+at /);
  if (before) expect(sha(file)).toBe(before);
  expect(fs.readdirSync(dir).sort()).toEqual(listing);
}

describe('a database file svc dev must not or cannot use', () => {
  it('a folder', async () => {
    const dir = freshDir();
    fs.mkdirSync(path.join(dir, 'data.sqlite'));
    await expectRefused(path.join(dir, 'data.sqlite'), /is a folder, not a database file$/);
  });

  it('a file that is not SQLite (text, and random bytes)', async () => {
    const dir = freshDir();
    fs.writeFileSync(path.join(dir, 'notes.sqlite'), 'remember the milk\n');
    await expectRefused(path.join(dir, 'notes.sqlite'), /is not an SQLite database$/);
    fs.writeFileSync(path.join(dir, 'noise.sqlite'), Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 251)));
    await expectRefused(path.join(dir, 'noise.sqlite'), /is not an SQLite database$/);
  });

  it("someone else's SQLite database: other tables, or another application id", async () => {
    const dir = freshDir();
    const theirs = new BetterSqlite3(path.join(dir, 'app.db'));
    theirs.exec("CREATE TABLE todos (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO todos (title) VALUES ('keep me')");
    theirs.close();
    await expectRefused(path.join(dir, 'app.db'), /is not an svc database \(it has tables svc never creates: todos\); it was left unchanged$/);

    const tagged = new BetterSqlite3(path.join(dir, 'tagged.db'));
    tagged.pragma('application_id = 1234');
    tagged.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)');
    tagged.close();
    await expectRefused(path.join(dir, 'tagged.db'), /is not an svc database \(its application_id is 0x000004d2\); it was left unchanged$/);
  });

  it('a corrupt svc database, and a truncated one', async () => {
    const dir = freshDir();
    const corrupt = path.join(dir, 'corrupt.sqlite');
    await svcDatabase(corrupt);
    const bytes = fs.readFileSync(corrupt);
    // Pages 2 onwards overwritten; page 1 (the header and the schema's root) left intact.
    for (let i = 4096; i < bytes.length; i++) bytes[i] = (i * 31) % 256;
    fs.writeFileSync(corrupt, bytes);
    await expectRefused(corrupt, /is corrupt \(/);

    const truncated = path.join(dir, 'truncated.sqlite');
    await svcDatabase(truncated);
    fs.truncateSync(truncated, Math.floor(fs.statSync(truncated).size / 2 / 4096) * 4096);
    await expectRefused(truncated, /is (corrupt|truncated)/);
  });

  it('an svc database from a newer release', async () => {
    const dir = freshDir();
    const file = path.join(dir, 'future.sqlite');
    await svcDatabase(file);
    const db = new BetterSqlite3(file);
    db.prepare("INSERT INTO kysely_migration (name, timestamp) VALUES ('9999-from-the-future', '2099-01-01T00:00:00.000Z')").run();
    db.close();
    await expectRefused(file, /was made by a newer version of svc \(unknown migrations: 9999-from-the-future\); upgrade svc$/);
  });

  it('a read-only file and an unreadable one', async () => {
    const dir = freshDir();
    const readOnly = path.join(dir, 'readonly.sqlite');
    await svcDatabase(readOnly);
    fs.chmodSync(readOnly, 0o444);
    await expectRefused(readOnly, /is read-only \(permission denied for writing\)$/, { unprivileged: true });

    const unreadable = path.join(dir, 'secret.sqlite');
    await svcDatabase(unreadable);
    fs.chmodSync(unreadable, 0o000);
    await expectRefused(unreadable, /cannot be read \(permission denied\)$/, { unprivileged: true });
  });
});

describe('a database another program keeps locked', () => {
  it('past the 5 s wait at start: one line naming the file, exit 1', async () => {
    const dir = freshDir();
    const file = path.join(dir, 'busy.sqlite');
    await svcDatabase(file);
    const other = new BetterSqlite3(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      const { code, stdout, stderr } = await runDev(['--db', 'busy.sqlite'], dir);
      expect({ code, stdout, stderr }).toEqual({
        code: 1,
        stdout: '',
        // Refused at the claim (issue 22: the claim holds the file itself, and cannot tell a program
        // from an svc dev through another path), before any wait.
        stderr:
          'error database busy.sqlite is in use by another process (an svc dev through another path to this file, or a program such as sqlite3 that has it open)\n',
      });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });
});

describe('what svc dev creates', () => {
  it('the database, its log and its claim are mode 0600', async () => {
    const dir = freshDir();
    const p = spawnCli(['dev', '--json', '--port', '0'], { cwd: dir });
    running.push(p);
    await p.waitForLine((l) => l.startsWith('{"type":"ready"'));
    const svc = path.join(dir, '.svc');
    const modes = Object.fromEntries(fs.readdirSync(svc).map((f) => [f, (fs.statSync(path.join(svc, f)).mode & 0o777).toString(8)]));
    expect(modes).toEqual({
      'dev.json': '600',
      'emulator.sqlite': '600',
      'emulator.sqlite-wal': '600',
      'emulator.sqlite-shm': '600',
      'emulator.sqlite-lock': '600',
      'emulator.sqlite-lock.json': '600',
    });
  });
});

describe('one emulator per database', () => {
  it('a second svc dev on the same file: one line naming the first, exit 1, and the first one’s dev.json untouched', async () => {
    const dir = freshDir();
    const first = spawnCli(['dev', '--json', '--port', '0'], { cwd: dir });
    running.push(first);
    const ready = JSON.parse(await first.waitForLine((l) => l.startsWith('{"type":"ready"'))) as { baseUrl: string };
    const devJson = path.join(dir, '.svc', 'dev.json');
    const recorded = fs.readFileSync(devJson, 'utf8');

    const second = await runDev([], dir);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toBe(`error database .svc/emulator.sqlite is in use by svc dev (pid ${first.child.pid}, ${ready.baseUrl})\n`);
    expect(fs.readFileSync(devJson, 'utf8')).toBe(recorded);

    // Given by absolute path from another folder: the same claim, the path as given.
    const elsewhere = freshDir();
    const absolute = await runDev(['--db', path.join(dir, '.svc', 'emulator.sqlite')], elsewhere);
    expect(absolute.code).toBe(1);
    expect(absolute.stderr).toMatch(/^error database \/.*\/\.svc\/emulator\.sqlite is in use by svc dev \(pid \d+, http:\/\/127\.0\.0\.1:\d+\)\n$/);
    expect(fs.existsSync(path.join(elsewhere, '.svc'))).toBe(false);
  });

  it('a port in use: one line naming it and suggesting --port 0, exit 1', async () => {
    const dir = freshDir();
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, stdout, stderr } = await runDev(['--port', String(port), '--memory'], dir);
      expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
      expect(stderr).toBe(`error port ${port} is already in use on 127.0.0.1; stop what uses it, or start with --port 0 to pick a free port\n`);
      expect(fs.existsSync(path.join(dir, '.svc', 'dev.json'))).toBe(false);
    } finally {
      blocker.close();
    }
  });
});

describe('the ready event and the banner say where it listens and which config it uses', () => {
  it('a config that binds every interface: address 0.0.0.0 and the file, in both, with a warning in the banner', async () => {
    const dir = freshDir();
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"shop"}');
    const config = path.join(dir, 'svc.config.json');
    fs.writeFileSync(config, JSON.stringify({ host: '0.0.0.0' }));
    const json = spawnCli(['dev', '--json', '--port', '0', '--memory'], { cwd: dir });
    running.push(json);
    const ready = JSON.parse(await json.waitForLine((l) => l.startsWith('{"type":"ready"')));
    expect(ready).toMatchObject({ address: expect.stringMatching(/^0\.0\.0\.0:\d+$/), configFile: config });
    await json.stop('SIGINT');

    const human = spawnCli(['dev', '--port', '0', '--memory'], { cwd: dir });
    running.push(human);
    await human.waitForLine((l) => l.includes('Press Ctrl-C'));
    const banner = human.lines.join('\n');
    expect(banner).toMatch(/Listening on\s+0\.0\.0\.0:\d+/);
    expect(banner).toContain(`Config             ${config}`);
    expect(banner).toMatch(/warning: listening on 0\.0\.0\.0:\d+, reachable from other machines on the network/);
  });

  it('an unreadable user config folder is skipped with a warning', async () => {
    const dir = freshDir();
    const home = path.join(dir, 'home');
    fs.mkdirSync(path.join(home, '.config', 'svc'), { recursive: true });
    fs.writeFileSync(path.join(home, '.config', 'svc', 'config.json'), '{"port": 1}');
    fs.chmodSync(path.join(home, '.config', 'svc'), 0o000);
    const env = { HOME: home, XDG_CONFIG_HOME: '' };
    const { stdout, stderr } = await runDev(['--memory', '--json'], dir, { unprivileged: true, env });
    // It started (and was stopped by the runner's timeout): the ready line came, the warning too.
    expect(stdout.split('\n')[0]).toMatch(/^\{"type":"ready"/);
    expect(stderr).toContain(`warning: ${path.join(home, '.config', 'svc')} cannot be read (permission denied); its config files were skipped`);
  }, 30_000);
});
