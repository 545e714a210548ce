// A throwaway PostgreSQL server for the PostgreSQL rows, started the way the tests start theirs
// (test/helpers/postgres-server.ts: initdb as an unprivileged user when root, a free port, fsync off
// but synchronous commits), bundled here from the TypeScript once per run with esbuild.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Starts a cluster in a temporary folder; `stop()` removes it. See PostgresServer in the helper. */
export async function startPostgres() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-pg-'));
  const bundle = path.join(dir, 'postgres-server.mjs');
  await build({
    entryPoints: [path.join(root, 'test/helpers/postgres-server.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'error',
    // The helpers find the repository (scripts/postgres-user.sh) from their own location.
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(path.join(root, 'test/helpers/cli.ts')).href) },
  });
  const { startPostgresServer } = await import(pathToFileURL(bundle).href);
  const server = await startPostgresServer({ dir: path.join(dir, 'cluster'), searchableFrom: dir });
  const stop = server.stop;
  server.stop = async () => {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return server;
}
