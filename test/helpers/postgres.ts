/**
 * A throwaway PostgreSQL server for one test file: `const server = await startPostgres();` at the
 * file's top level, like tempDir(), and a database per test with `await server.createDatabase()`.
 * The cluster lives in a folder under the file's own TMPDIR (inside the run's isolation root) and
 * is stopped and removed after the file. Not from inside beforeAll: vitest never runs an afterAll
 * registered there (the server would then only be killed when the worker exits). What it can do is
 * in test/helpers/postgres-server.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, inject } from 'vitest';
import { type PostgresServer, startPostgresServer } from './postgres-server.js';

export type { PostgresServer } from './postgres-server.js';

/** Starts a cluster (initdb + start, about a second) and stops it after the test file. */
export async function startPostgres(): Promise<PostgresServer> {
  // TMPDIR is the current test's folder (test/helpers/isolation.ts); the run's root bounds the chmod.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-'));
  const server = await startPostgresServer({ dir, searchableFrom: inject('svcTestRoot') });
  afterAll(() => server.stop());
  return server;
}
