/**
 * A fresh PostgreSQL database per emulator, on the run's one server (test/helpers/postgres-global.ts),
 * for the projects that run the suites on PostgreSQL (TEST_STORE_ENGINE=postgres, vitest.config.ts).
 */
import pg from 'pg';
import { inject } from 'vitest';

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
