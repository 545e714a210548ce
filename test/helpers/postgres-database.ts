/**
 * A fresh PostgreSQL database per emulator, on the run's one server (test/helpers/postgres-global.ts),
 * for the projects that run the suites on PostgreSQL (TEST_STORE_ENGINE=postgres, vitest.config.ts).
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { inject } from 'vitest';
import { postgresBin } from './postgres-tools.js';

let created = 0;

/** Which engine this run's test emulators use. */
export const testEngine = (): 'sqlite' | 'postgres' => (process.env.TEST_STORE_ENGINE === 'postgres' ? 'postgres' : 'sqlite');

/** A new database with svc's schema already migrated (a copy of the template); resolves to its URL. */
export async function freshPostgresDatabase(): Promise<string> {
  const admin = new URL(inject('svcPostgresUrl'));
  const name = `e${process.pid}_${++created}`;
  const client = new pg.Client({ connectionString: admin.href });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE svc_template`);
  } finally {
    await client.end();
  }
  admin.pathname = `/${name}`;
  return admin.href;
}

/** The same, synchronously (psql): for spawning `svc` from code that cannot await (test/helpers/cli.ts). */
export function freshPostgresDatabaseSync(): string {
  const admin = new URL(inject('svcPostgresUrl'));
  const name = `c${process.pid}_${++created}`;
  const result = spawnSync(postgresBin('psql'), ['-X', '-q', '-v', 'ON_ERROR_STOP=1', admin.href, '-c', `CREATE DATABASE ${name} TEMPLATE svc_template`], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`CREATE DATABASE ${name} failed: ${result.stderr || result.error}`);
  admin.pathname = `/${name}`;
  return admin.href;
}

/**
 * `svc dev`/`svc exec` arguments for this run's engine: on PostgreSQL, an in-memory emulator
 * (`--memory`, or exec's default) runs on a fresh database instead (`--database <url>`). A named
 * SQLite file (`--db`) stays SQLite: such a test is about the file. Other commands are unchanged.
 * The URL goes without its password, which `engineEnv()` passes as PGPASSWORD (pg reads it): a
 * password on the command line is what svc warns about (every local user reads it).
 */
export function argsForEngine(args: string[]): string[] {
  if (testEngine() !== 'postgres' || (args[0] !== 'dev' && args[0] !== 'exec')) return args;
  const end = args.indexOf('--');
  const own = end === -1 ? args : args.slice(0, end);
  const rest = end === -1 ? [] : args.slice(end);
  if (own.includes('--db') || own.includes('--database')) return args;
  const memory = own.indexOf('--memory');
  if (memory !== -1) return [...own.slice(0, memory), '--database', withoutPassword(freshPostgresDatabaseSync()), ...own.slice(memory + 1), ...rest];
  if (args[0] === 'exec') return [...own, '--database', withoutPassword(freshPostgresDatabaseSync()), ...rest];
  return args;
}

/** The environment a spawned `svc` gets for this run's engine: the database password, on PostgreSQL. */
export function engineEnv(): Record<string, string> {
  if (testEngine() !== 'postgres') return {};
  return { PGPASSWORD: decodeURIComponent(new URL(inject('svcPostgresUrl')).password) };
}

function withoutPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.href;
}
