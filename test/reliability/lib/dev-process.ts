/**
 * `svc dev --json --port <fixed> --db <file>` as a child process that the crash test kills and starts
 * again: the port is fixed so that every incarnation has the same base URL (receivers, clients and the
 * test's records stay valid across restarts). Runs the built CLI: vitest.reliability.config.ts builds dist/ first.
 */
import { createServer } from 'node:net';
import { spawnCli, type LiveCli } from '../../helpers/cli.js';
import { PlainClient } from './plain-client.js';

export interface ReadyEvent {
  type: 'ready';
  baseUrl: string;
  test: { partnerKey: string; merchantKey: string; merchantId: string };
  live: { partnerKey: string; merchantKey: string; merchantId: string };
}

export interface DevProcess {
  cli: LiveCli;
  ready: ReadyEvent;
  client: PlainClient;
  /** SIGKILL, then waits for the exit; resolves with Date.now() just before the signal was sent. */
  kill(): Promise<number>;
}

/** A port that was free a moment ago (bound to 0 on 127.0.0.1, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startDev(options: { cwd: string; port: number; db: string }): Promise<DevProcess> {
  const cli = spawnCli(['dev', '--json', '--port', String(options.port), '--db', options.db], { cwd: options.cwd });
  let ready: ReadyEvent;
  try {
    ready = JSON.parse(await cli.waitForLine((l) => l.startsWith('{"type":"ready"'), 20_000)) as ReadyEvent;
  } catch (error) {
    await cli.stop('SIGKILL');
    throw error;
  }
  const client = new PlainClient(ready.baseUrl);
  return {
    cli,
    ready,
    client,
    async kill() {
      const at = Date.now();
      cli.child.kill('SIGKILL');
      await cli.exited;
      await client.close();
      return at;
    },
  };
}
