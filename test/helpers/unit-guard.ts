/**
 * setupFile of the unit project: unit tests are pure and fast, so starting a server or a process
 * there is a mistake worth a clear failure, not a slow suite. A test that needs either belongs in
 * test/integration/ (in-process, real servers and shells) or test/e2e/ (spawns bin/svc.js).
 */
import childProcess from 'node:child_process';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';

const refuse = (what: string) => () => {
  throw new Error(`unit tests ${what}: move this test to test/integration/ or test/e2e/ (see vitest.config.ts)`);
};

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = refuse('spawn no processes');
}
net.Server.prototype.listen = refuse('start no servers') as unknown as typeof net.Server.prototype.listen;
// Named imports (`import { spawn } from 'node:child_process'`) read the patched functions too.
syncBuiltinESMExports();
