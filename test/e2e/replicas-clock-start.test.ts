/**
 * CONTRACT §12 (issue 40): `--clock-start` describes the sandbox, not one replica. A second `svc dev`
 * on the same PostgreSQL database given another clock start is refused with one line naming both
 * times, exit 1 (before, it started on its own clock and dated its invoices before the others').
 */
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';

const server = await startPostgres();

describe('svc dev --clock-start on a shared database', () => {
  it('a replica given another clock start than the sandbox’s exits 1 with one line', async () => {
    const database = await server.createDatabase();
    const first = spawnCli(['dev', '--port', '0', '--json', '--clock-start', '2030-01-01T00:00:00Z'], { cwd: tempDir(), env: { SVC_DATABASE_URL: database } });
    try {
      await first.waitForLine((l) => l.startsWith('{"type":"ready"'), 30_000);
      const other = await runCli(['dev', '--port', '0', '--clock-start', '2031-06-01T00:00:00Z'], { cwd: tempDir(), env: { SVC_DATABASE_URL: database } });
      expect(other.code).toBe(1);
      const lines = other.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/2030-01-01T00:00:00\.000Z.*--clock-start 2031-06-01T00:00:00\.000Z/);
    } finally {
      await first.stop('SIGTERM');
    }
  });
});
