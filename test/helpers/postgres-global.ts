/**
 * vitest globalSetup variant: one PostgreSQL server for a whole run, for a project that runs many
 * files against PostgreSQL. List it after test/helpers/isolation-root.ts (it puts the cluster under
 * that root); a test reads the URL with `inject('svcPostgresUrl')` and makes its own database
 * (`CREATE DATABASE … TEMPLATE`, see PostgresServer.createDatabase) through it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openPostgres } from '../../src/store/postgres/connect.js';
import { migratePostgres } from '../../src/store/postgres/migrate.js';
import { holdRoot, releaseRoot } from './isolation-root.js';
import { type PostgresServer, startPostgresServer } from './postgres-server.js';

/** A database with svc's schema, copied for each emulator a test starts (test/helpers/postgres-database.ts). */
export const TEMPLATE_DATABASE = 'svc_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The superuser's URL of the run's shared server (postgres://svc:…@127.0.0.1:PORT/svc). */
    svcPostgresUrl: string;
  }
}

// Each project runs its globalSetup in the same vitest process: one server for the whole run.
const shared = globalThis as { svcPostgres?: Promise<PostgresServer>; svcPostgresUsers?: number };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = (project.getProvidedContext() as { svcTestRoot?: string }).svcTestRoot;
  if (!root) throw new Error('postgres-global.ts: list test/helpers/isolation-root.ts before it in globalSetup');
  shared.svcPostgres ??= startPostgresServer({ dir: fs.mkdtempSync(path.join(root, 'postgres-')), searchableFrom: root }).then(async (server) => {
    // Migrated once here: a copy (CREATE DATABASE … TEMPLATE, ~50 ms) then starts with the schema,
    // and no test pays for the migrations. Closed before any copy: a template must have no sessions.
    await server.createDatabase({ name: TEMPLATE_DATABASE });
    const db = openPostgres({ url: server.urlFor(TEMPLATE_DATABASE) });
    try {
      await migratePostgres(db);
    } finally {
      await db.destroy();
    }
    return server;
  });
  const server = await shared.svcPostgres;
  project.provide('svcPostgresUrl', server.url);
  // The server lives in the run's root: it holds the root until the last project using the server
  // has torn down (projects tear down in no fixed order), then stops, then lets the root go.
  if (shared.svcPostgresUsers === undefined) holdRoot();
  shared.svcPostgresUsers = (shared.svcPostgresUsers ?? 0) + 1;
  return async () => {
    shared.svcPostgresUsers = (shared.svcPostgresUsers ?? 1) - 1;
    if (shared.svcPostgresUsers > 0) return;
    try {
      await server.stop();
    } finally {
      releaseRoot();
    }
  };
}
