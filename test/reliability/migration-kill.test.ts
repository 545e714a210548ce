/**
 * Reliability: a kill during a migration (issue 10; CONTRACT §8 "Migrations are atomic").
 *
 * Starting points: a fresh database, and every earlier schema version (each built by migrating to it
 * with kysely's Migrator, as earlier releases did, then given a few rows). From each:
 *
 * 1. Every moment between two SQL statements of the open: the files are copied as they are on disk
 *    right after statement k (a SIGKILL leaves exactly that: SQLite's page cache dies, what it wrote
 *    is in the OS), for every k; each copy must then open, with exactly the schema and migration
 *    records of an uninterrupted open, and the rows written before.
 * 2. Real kills: a child process opens the database and SIGKILLs itself right after statement k, for
 *    a seeded sample of k; the next open must complete the same way.
 * 3. Real `svc dev` processes killed from outside, with SIGKILL and with SIGINT, a random moment after
 *    their database (or its log) appears, while SQLite writes; the next `svc dev` must start.
 *
 * The sample and the moments come from a printed seed (`SVC_RELIABILITY_SEED`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/migrations/index.js';
import { openStore } from '../../src/store/sqlite/store.js';
import { ROOT, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { derive, runSeed } from './lib/seeded-random.js';

const SEED = runSeed();
console.log(`[migration-kill] seed ${SEED} (replay with SVC_RELIABILITY_SEED=${SEED})`);

const run = promisify(execFile);
const CHILD = path.join(ROOT, 'test', 'reliability', 'lib', 'open-store-child.mjs');
const DIST = path.join(ROOT, 'dist');
const NAMES = Object.keys(migrations);
const dir = tempDir('svc-migration-kill-');

/**
 * Called after every SQL statement this process runs while set (better-sqlite3's statements and
 * `exec` are wrapped once, below): the moment-by-moment test copies the files there.
 */
let afterStatement: (() => void) | null = null;
{
  const probe = new BetterSqlite3(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'get', 'all']) {
    const original = proto[method]!;
    proto[method] = function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      afterStatement?.();
      return result;
    };
  }
  const exec = BetterSqlite3.prototype.exec;
  BetterSqlite3.prototype.exec = function (this: BetterSqlite3.Database, source: string) {
    const result = exec.call(this, source);
    afterStatement?.();
    return result;
  };
}

/** Opens `file` in a child that dies after statement `killAfter` (0: never); the child's result. */
async function openInChild(file: string, killAfter: number): Promise<{ killed: boolean; statements?: number; firstWrite?: number; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CHILD, DIST, file, String(killAfter)], { cwd: ROOT });
    return { killed: false, ...(JSON.parse(stdout) as { statements: number; firstWrite: number }), stderr };
  } catch (error) {
    const e = error as { signal?: string; stderr?: string };
    if (e.signal === 'SIGKILL') return { killed: true, stderr: e.stderr ?? '' };
    throw new Error(`the child failed to open ${path.basename(file)}: ${e.stderr ?? String(error)}`);
  }
}

/** A database migrated by kysely's Migrator to the first `version` migrations, with marker rows. */
async function earlierVersion(version: number, file: string): Promise<void> {
  if (version === 0) return;
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
  const subset: Record<string, Migration> = Object.fromEntries(await Promise.all(NAMES.slice(0, version).map(async (n) => [n, await migrations[n]!()])));
  const { error } = await new Migrator({ db, provider: { getMigrations: () => Promise.resolve(subset) } }).migrateToLatest();
  if (error) throw error;
  sqlite.prepare("INSERT INTO meta (key, value) VALUES ('reliability_marker', ?)").run(JSON.stringify({ version }));
  sqlite.prepare('INSERT INTO partners (id, name, created_at) VALUES (?, ?, 1)').run(`marker-${version}`, `Partner from v${version}`);
  await db.destroy();
}

interface Shape {
  schema: string[];
  recorded: string[];
  applicationId: number;
  markers: unknown[];
}

function shapeOf(file: string): Shape {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const schema = (
      db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY name").all() as {
        type: string;
        name: string;
        sql: string | null;
      }[]
    ).map((r) => `${r.type} ${r.name}: ${r.sql}`);
    const recorded = (db.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]).map((r) => r.name);
    const applicationId = db.pragma('application_id', { simple: true }) as number;
    const markers = [
      ...db.prepare("SELECT value FROM meta WHERE key = 'reliability_marker'").all(),
      ...db.prepare("SELECT id, name FROM partners WHERE id LIKE 'marker-%'").all(),
    ];
    return { schema, recorded, applicationId, markers };
  } finally {
    db.close();
  }
}

function copyDatabase(from: string, to: string): void {
  for (const suffix of ['', '-wal', '-shm']) {
    fs.rmSync(to + suffix, { force: true });
    if (fs.existsSync(from + suffix)) fs.copyFileSync(from + suffix, to + suffix);
  }
}

/** A database opened from `base`'s state must reach the latest shape and keep `before`'s rows. */
function checkRecovered(file: string, latest: Shape, before: Pick<Shape, 'markers'>): void {
  const after = shapeOf(file);
  expect(after.schema).toEqual(latest.schema);
  expect(after.recorded).toEqual(latest.recorded);
  expect(after.applicationId).toBe(latest.applicationId);
  expect(after.markers).toEqual(before.markers);
}

describe('a kill between any two statements of a migration', () => {
  let latest: Shape;
  const bases: { version: number; file: string; before: Pick<Shape, 'markers'> }[] = [];

  beforeAll(async () => {
    const reference = path.join(dir, 'reference.sqlite');
    (await openStore({ file: reference })).close();
    latest = shapeOf(reference);
    expect(latest.recorded).toEqual(NAMES);
    for (let version = 0; version < NAMES.length; version++) {
      const file = path.join(dir, `v${version}.sqlite`);
      await earlierVersion(version, file);
      bases.push({ version, file, before: version === 0 ? { markers: [] } : shapeOf(file) });
    }
  });

  it('every moment, fresh start and every upgrade: the files as a kill leaves them open completely, rows kept', async () => {
    let moments = 0;
    const failures: string[] = [];
    for (const { version, file: base, before } of bases) {
      const work = path.join(dir, `snap-v${version}.sqlite`);
      copyDatabase(base, work);
      const snapshots: string[] = [];
      // After each statement of the open, the three files as they are on disk now.
      afterStatement = () => {
        const snapshot = path.join(dir, `snap-v${version}-k${snapshots.length + 1}.sqlite`);
        copyDatabase(work, snapshot);
        snapshots.push(snapshot);
      };
      try {
        (await openStore({ file: work })).close();
      } finally {
        afterStatement = null;
      }
      for (const [i, snapshot] of snapshots.entries()) {
        moments += 1;
        try {
          (await openStore({ file: snapshot })).close();
          checkRecovered(snapshot, latest, before);
        } catch (error) {
          failures.push(`from v${version}, after statement ${i + 1}/${snapshots.length}: ${(error as Error).message.split('\n')[0]}`);
        }
        for (const suffix of ['', '-wal', '-shm']) fs.rmSync(snapshot + suffix, { force: true });
      }
    }
    console.log(`[migration-kill] ${moments} moments between statements, from ${bases.length} starting versions; ${failures.length} did not recover`);
    expect(failures).toEqual([]);
    expect(moments).toBeGreaterThan(100);
  });

  it('real SIGKILLs at a sample of statements: the next open completes, rows kept', async () => {
    const random = derive(SEED, 'self-kill');
    let kills = 0;
    const failures: string[] = [];
    for (const { version, file: base, before } of bases) {
      const probe = path.join(dir, `kill-v${version}-probe.sqlite`);
      copyDatabase(base, probe);
      const { statements: total, firstWrite } = await openInChild(probe, 0);
      // Six moments from the first write transaction on (the reads before it cannot harm anything).
      const sample = [...new Set(Array.from({ length: 6 }, () => firstWrite! + 1 + Math.floor(random() * (total! - firstWrite!))))];
      await inPool(2, sample, async (k) => {
        const file = path.join(dir, `kill-v${version}-k${k}.sqlite`);
        copyDatabase(base, file);
        if (!(await openInChild(file, k)).killed) return;
        kills += 1;
        try {
          (await openStore({ file })).close();
          checkRecovered(file, latest, before);
        } catch (error) {
          failures.push(`from v${version}, killed after statement ${k}/${total!}: ${(error as Error).message.split('\n')[0]}`);
        }
      });
    }
    console.log(`[migration-kill] ${kills} processes SIGKILLed between statements; ${failures.length} left a database that did not open`);
    expect(failures).toEqual([]);
    expect(kills).toBeGreaterThan(NAMES.length * 3);
  });
});

describe('svc dev killed from outside while it migrates', () => {
  it('SIGKILL and SIGINT a random moment after the database file appears: the next start completes and keeps the rows', async () => {
    const random = derive(SEED, 'outside');
    const failures: string[] = [];
    let kills = 0;
    let completedBeforeKill = 0;
    const rounds = 2;
    for (let version = 0; version < NAMES.length; version++) {
      const base = path.join(dir, `outside-v${version}.sqlite`);
      await earlierVersion(version, base);
      const before = version === 0 ? { markers: [] } : shapeOf(base);
      for (const signal of ['SIGKILL', 'SIGINT'] as const) {
        for (let round = 0; round < rounds; round++) {
          const work = fs.mkdtempSync(path.join(dir, 'dev-'));
          const file = path.join(work, 'emulator.sqlite');
          if (version === 0) fs.rmSync(file, { force: true });
          else copyDatabase(base, file);
          // The moment: up to 40 ms after the file (or, for an upgrade, its WAL) shows up.
          const delay = Math.floor(random() * 40);
          const watched = version === 0 ? file : `${file}-wal`;
          const cli = spawnCli(['dev', '--json', '--port', '0', '--db', file], { cwd: work });
          const appeared = await waitForFile(watched, cli.exited);
          if (appeared) await new Promise((r) => setTimeout(r, delay));
          if (cli.child.exitCode === null) cli.child.kill(signal);
          await cli.exited;
          if (cli.lines.some((l) => l.startsWith('{"type":"ready"'))) completedBeforeKill += 1;
          kills += 1;
          const again = spawnCli(['dev', '--json', '--port', '0', '--db', file], { cwd: work });
          try {
            await again.waitForLine((l) => l.startsWith('{"type":"ready"'), 20_000);
            await again.stop('SIGINT');
            const after = shapeOf(file);
            expect(after.recorded).toEqual(NAMES);
            expect(after.markers).toEqual(before.markers);
          } catch (error) {
            await again.stop('SIGKILL');
            failures.push(`from v${version}, ${signal} ${delay} ms after the file appeared: ${(error as Error).message.split('\n').slice(0, 6).join(' | ')}`);
          }
        }
      }
    }
    console.log(`[migration-kill] ${kills} svc dev processes killed from outside (${completedBeforeKill} had already started); ${failures.length} failures`);
    expect(failures).toEqual([]);
  }, 600_000);
});

/** Resolves true once `file` exists (polled every millisecond), false if the process exits first. */
async function waitForFile(file: string, exited: Promise<unknown>): Promise<boolean> {
  let done = false;
  void exited.then(() => (done = true));
  for (let i = 0; i < 20_000 && !done; i++) {
    if (fs.existsSync(file)) return true;
    await new Promise((r) => setTimeout(r, 1));
  }
  return false;
}

/** Runs `task` for each item, `width` at a time. */
async function inPool<T>(width: number, items: T[], task: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
  };
  await Promise.all(Array.from({ length: width }, worker));
}
