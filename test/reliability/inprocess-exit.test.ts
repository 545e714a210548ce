/**
 * CONTRACT §11: the in-process emulator never takes its user's process down at exit. better-sqlite3
 * 12 aborted Node 24 processes at exit (SIGABRT, `Assertion failed: (env) != nullptr`, 4 of 12 runs)
 * and crashed vitest workers; `.ci/run` runs this file on every supported Node.
 *
 * 1. 200 fresh processes, each as a user's test file: import the package, start an emulator in memory
 *    (and, every 10th, once more on a file database), create and pay an invoice, stop, exit normally.
 * 2. A vitest run of a small suite that starts emulators in-process, in the threads and the forks
 *    pools: no crashed worker.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = pathToFileURL(path.join(root, 'dist', 'index.js')).href;
const child = path.join(root, 'test', 'reliability', 'lib', 'inprocess-exit-child.mjs');
const PROCESSES = Number(process.env.SVC_EXIT_RUNS ?? 200);
const PARALLEL = 4;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const p = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c) => (stdout += c));
    p.stderr.on('data', (c) => (stderr += c));
    p.on('error', reject);
    p.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe(`the in-process emulator exits cleanly on Node ${process.versions.node}`, () => {
  it(`${PROCESSES} fresh processes: import, start, create, pay, stop, exit — 0 abnormal exits`, { timeout: 600_000 }, async () => {
    const dir = tempDir('svc-exit-');
    const abnormal: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < PROCESSES) {
        const i = next++;
        const folder = i % 10 === 0 ? fs.mkdtempSync(path.join(dir, `file-${i}-`)) : undefined;
        const ended = await run(process.execPath, [child, dist, ...(folder ? [folder] : [])], dir);
        if (ended.code !== 0 || ended.signal !== null || ended.stdout !== 'done\n') {
          abnormal.push(`run ${i}: exit ${ended.code} signal ${ended.signal}: ${ended.stderr.slice(-400)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    expect(abnormal).toEqual([]);
  });

  for (const pool of ['threads', 'forks'] as const) {
    it(`a vitest run in the ${pool} pool with the emulator in-process: no crashed worker`, { timeout: 300_000 }, async () => {
      const dir = tempDir(`svc-exit-${pool}-`);
      const body = (n: number) => `import { it, expect } from 'vitest';
import { startEmulator } from ${JSON.stringify(dist)};
for (let i = 0; i < 5; i++) {
  it('starts, pays and stops ${n}.' + i, async () => {
    const emulator = await startEmulator({ port: 0, db: i === 0 ? ${JSON.stringify(dir)} + '/f${n}.sqlite' : ':memory:' });
    const created = await emulator.client.test.createPartnerInvoice({ body: { merchantId: emulator.keys.test.merchantId, amount: '1.00' }, idempotencyKey: crypto.randomUUID() });
    expect(created.ok).toBe(true);
    if (created.ok) expect((await emulator.client.test.createTestPayment({ params: { id: created.data.id }, body: {} })).ok).toBe(true);
    await emulator.stop();
  });
}
`;
      for (let n = 0; n < 8; n++) fs.writeFileSync(path.join(dir, `in-process-${n}.test.mjs`), body(n));
      fs.writeFileSync(path.join(dir, 'vitest.config.mjs'), 'export default {};\n');
      const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
      const ended = await run(process.execPath, [vitest, 'run', '--pool', pool, '--root', dir, '--reporter', 'dot'], dir, {
        ...process.env,
        NO_COLOR: '1',
        CI: '1',
      });
      expect({
        code: ended.code,
        signal: ended.signal,
        crashed: /ERR_IPC_CHANNEL_CLOSED|Worker exited unexpectedly|SIGABRT|Assertion failed/.test(ended.stdout + ended.stderr),
      }).toEqual({
        code: 0,
        signal: null,
        crashed: false,
      });
      expect(ended.stdout).toMatch(/Tests\s+40 passed/);
    });
  }
});
