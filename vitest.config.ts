import os from 'node:os';
import { defineConfig } from 'vitest/config';

/** Builds dist/ (once per run, only when src/ changed) for the projects that run the built package. */
const BUILD = './test/helpers/build-once.ts';
/** Every test gets its own HOME, XDG folders, TMPDIR and working folder under one root per run. */
const ISOLATION_ROOT = './test/helpers/isolation-root.ts';
const ISOLATION = './test/helpers/isolation.ts';

/**
 * One project per folder of test/: a file belongs to the layer of the folder it is in. Run one with
 * `npx vitest run --project <name>` (a single file too: `npx vitest run --project e2e test/e2e/dev.test.ts`).
 * The reliability suite (test/reliability/) has its own config and runs after these in `npm test`.
 */
/** e2e files the PostgreSQL project leaves out, and why. */
const E2E_POSTGRES_EXCLUDED: string[] = [
  'test/e2e/replicas-*.test.ts', // several replicas on one PostgreSQL database of their own
  'test/e2e/logs-tail-replicas.test.ts', // starts PostgreSQL on its own (several replicas on one database)
  'test/e2e/chains.test.ts', // local chains need SQLite (--chains refuses --database, which the project would add)
];

/**
 * Integration files the PostgreSQL project leaves out, and why. The rule: a file stays out only when
 * it is about SQLite itself, starts no emulator (it would only run twice), or starts PostgreSQL on
 * its own; a test about SQLite in a file that is not is skipped there with `it.skipIf`.
 */
const POSTGRES_EXCLUDED: string[] = [
  // About SQLite itself.
  'test/integration/compiled-sql.test.ts', // the build's recorded SQLite migrations against kysely's
  'test/integration/query-plans.test.ts', // SQLite's EXPLAIN QUERY PLAN of every due-work lookup
  'test/integration/storage-full.test.ts', // SQLITE_FULL through PRAGMA max_page_count
  'test/integration/restart.test.ts', // restarts on the same SQLite file
  'test/integration/pinned-keys.test.ts', // restarts on the same SQLite file, through startEmulator
  // No emulator, or one only to read its OpenAPI document: the same on either engine.
  'test/integration/attempt.test.ts', // one delivery attempt against receivers, no store
  'test/integration/cli-api-types.test.ts', // source text of src/cli/
  'test/integration/cli-handlers.test.ts', // handler modules load
  'test/integration/completion-shells.test.ts', // shell completion scripts
  'test/integration/config-files.test.ts', // the config loader on files
  'test/integration/docs-cli-reference.test.ts', // docs/cli.md
  'test/integration/docs-links.test.ts', // links between the docs
  'test/integration/docs-fidelity.test.ts', // docs/fidelity.md's table against the check list
  'test/integration/openapi.test.ts', // the OpenAPI document
  'test/integration/openapi-document.test.ts', // the OpenAPI document
  'test/integration/openapi-tools.test.ts', // the OpenAPI document through Redocly and openapi-typescript
  'test/integration/restore-record.test.ts', // the listen restore file
  'test/integration/test-isolation.test.ts', // the tests' own isolation
  'test/integration/tunnel.test.ts', // the tunnel against a fake cloudflared
  // Local chains need SQLite (CONTRACT §14: --chains refuses PostgreSQL; chains-rpc.test.ts checks the refusal).
  'test/integration/chains-*.test.ts',
  // Start PostgreSQL on their own.
  'test/integration/postgres-*.test.ts',
  'test/integration/store-db.test.ts',
  'test/integration/replicas-*.test.ts', // several replicas on one database of their own
  'test/integration/delivery-leases.test.ts', // both engines, PostgreSQL of its own
  'test/integration/delivery-replicas.test.ts', // several replicas on one database of their own
];

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default is one worker per core but one: a single worker on a 2-core machine, where
    // most test files wait on spawned processes, sockets and disks, not on the CPU. Two workers there
    // took the integration project from 102 s to 59 s of wall time for the same CPU time.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          // Pure functions only: no servers, no spawned processes (test/helpers/unit-guard.ts refuses
          // both), no shells, no README, no CLI handlers. Those belong to integration or e2e.
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          globalSetup: [ISOLATION_ROOT],
          setupFiles: [ISOLATION, './test/helpers/unit-guard.ts'],
        },
      },
      {
        extends: true,
        // In-process: a real emulator on port 0, real SQLite files, real receivers, real shells.
        // Room for a 2-core machine. Every response is checked against the OpenAPI document.
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: [ISOLATION_ROOT],
          setupFiles: [ISOLATION, './test/helpers/check-responses.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        // The same integration files on PostgreSQL (issue 27): every emulator a test starts without
        // naming a SQLite file gets a fresh database copied from a migrated template on the run's
        // one server (test/helpers/postgres-global.ts, postgres-database.ts). Files that are about
        // SQLite itself, or start no emulator, are left out (the list says why).
        test: {
          name: 'integration-postgres',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...POSTGRES_EXCLUDED],
          globalSetup: [ISOLATION_ROOT, './test/helpers/postgres-global.ts'],
          setupFiles: [ISOLATION, './test/helpers/engine-postgres.ts', './test/helpers/check-responses.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        // Debian's Chromium against an in-process emulator. The dashboard loads the typed client
        // from dist/client.js (served at /assets/client.js): built here first.
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: [ISOLATION_ROOT, BUILD],
          setupFiles: [ISOLATION],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        // Spawns bin/svc.js, which runs dist/: built here first.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: [ISOLATION_ROOT, BUILD],
          setupFiles: [ISOLATION],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        // The same e2e files on PostgreSQL (issue 27): in-process emulators as in integration-postgres,
        // and a spawned `svc dev --memory` or `svc exec` gets `--database <fresh url>` instead
        // (test/helpers/cli.ts, postgres-database.ts argsForEngine). SQLite-only files are listed.
        test: {
          name: 'e2e-postgres',
          include: ['test/e2e/**/*.test.ts'],
          exclude: [...E2E_POSTGRES_EXCLUDED],
          globalSetup: [ISOLATION_ROOT, BUILD, './test/helpers/postgres-global.ts'],
          setupFiles: [ISOLATION, './test/helpers/engine-postgres.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        // npm pack, install the tarball into a fresh project, type-check and run a consumer there.
        test: {
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          globalSetup: [ISOLATION_ROOT, BUILD],
          setupFiles: [ISOLATION],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        extends: true,
        // The svc-emulator image, built by the setup with podman or docker and run with published
        // ports and volumes (docs/container.md). Where neither works, the setup says so in one line
        // and every test here is skipped.
        test: {
          name: 'container',
          include: ['test/container/**/*.test.ts'],
          globalSetup: ['./test/helpers/container-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
