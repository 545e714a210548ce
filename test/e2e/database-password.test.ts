/**
 * A password on the command line (CONTRACT §12 "Trust only its own", issue 40): `svc dev --database
 * postgres://user:secret@…` puts it where every local user reads it (/proc/<pid>/cmdline, ps), so
 * svc says so and names the two places that keep it private; the same URL in SVC_DATABASE_URL, or a
 * URL without a password, gets no such warning. The server here is unreachable on purpose: the
 * warning comes before svc connects, and the start then ends with its usual one line, exit 1.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const NOWHERE = 'postgres://svc:s3cret-pass@127.0.0.1:1/sandbox';
const WARNING = 'warning: --database carries a password, which every local user can read in /proc/<pid>/cmdline';

describe('svc dev --database with a password', () => {
  it('warns, naming SVC_DATABASE_URL and the config file; the environment and a URL without one do not', async () => {
    const flagged = await runCli(['dev', '--port', '0', '--database', NOWHERE], { cwd: tempDir(), env: { SVC_DATABASE_URL: '' } });
    expect(flagged.code).toBe(1);
    const first = flagged.stderr.split('\n')[0]!;
    expect(first).toContain(WARNING);
    expect(first).toContain('SVC_DATABASE_URL or the config file');
    expect(flagged.stderr).not.toContain('s3cret-pass');

    const inQuery = await runCli(['dev', '--port', '0', '--database', 'postgres://svc@127.0.0.1:1/sandbox?password=s3cret'], { cwd: tempDir() });
    expect(inQuery.stderr).toContain(WARNING);

    for (const [args, env] of [
      [['dev', '--port', '0'], { SVC_DATABASE_URL: NOWHERE }],
      [['dev', '--port', '0', '--database', 'postgres://svc@127.0.0.1:1/sandbox'], {}],
    ] as const) {
      const quiet = await runCli([...args], { cwd: tempDir(), env });
      expect(quiet.code).toBe(1);
      expect(quiet.stderr).not.toContain('warning: --database');
    }
  });
});
