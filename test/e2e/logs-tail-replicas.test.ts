import { afterEach, describe, expect, it } from 'vitest';
import { type LiveCli, spawnCli } from '../helpers/cli.js';
import { ikey } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet } from '../helpers/replicas.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Issue 28 (CONTRACT §12): `svc logs tail` on one replica shows requests answered by another. Two
 * emulators on one PostgreSQL database, the CLI spawned from the build against B, a create through A.
 */
const server = await startPostgres();
const replicas = replicaSet();
const NO_TARGET = { SVC_BASE_URL: '', SVC_PARTNER_KEY: '', SVC_MERCHANT_KEY: '', SVC_PROFILE: '' };
const running: LiveCli[] = [];
// Registered after replicaSet's: hooks run in reverse, so the CLI stops before the replicas do.
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGINT')));
});

describe('svc logs tail across replicas', () => {
  it('tailing B shows a create answered by A, with A’s Request-Id', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    const tail = spawnCli(['logs', 'tail', '--base-url', b!.url, '--path', '/v1/invoices'], { cwd: tempDir(), env: NO_TARGET });
    running.push(tail);
    // It says on stderr once it follows the stream (a condition, with a generous ceiling).
    for (let i = 0; i < 200 && !tail.stderr().includes('Tailing API requests'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(tail.stderr()).toContain('Tailing API requests');
    const created = await a!.call('POST', '/v1/invoices', { key: a!.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '5.00' } });
    expect(created.status).toBe(201);
    const requestId = created.headers.get('request-id')!;
    const line = await tail.waitForLine((l) => l.includes(requestId));
    expect(line).toMatch(/ POST \/v1\/invoices 201 .*merchant test/);
    expect(await tail.stop('SIGINT')).toBe(0);
  });
});
