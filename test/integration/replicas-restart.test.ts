/**
 * CONTRACT §12: the PostgreSQL server restarts under the replicas. Each one's change channel
 * (src/store/postgres/notify.ts) reconnects by itself, reloads what it may have missed, and hears
 * the other replicas' changes again.
 */
import { describe, expect, it } from 'vitest';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet, until } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();

const offsetOf = async (e: { call: (m: string, p: string) => Promise<{ status: number; body: { offsetSeconds: number } }> }) =>
  (await e.call('GET', '/__emulator/clock')).body.offsetSeconds;

describe('replicas across a database restart', () => {
  it('B hears A again after the server restarted', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    const warnings: string[] = [];
    b!.on((event) => {
      if (event.type === 'warning') warnings.push(event.message);
    });
    await server.restart();
    // A's pool reconnects on its next query: the first advances may answer 503 while it does.
    await until(
      'A to advance after the restart',
      async () => (await a!.call('POST', '/__emulator/clock/advance', { body: { seconds: 60 } })).status === 200,
      20_000,
    );
    // Told, or reloaded on reconnecting: either way B shows it.
    await until('B to show the advance made while it reconnected', async () => (await offsetOf(b!)) === 60, 20_000);
    await until('B’s change channel to be connected again', () => warnings.some((m) => m.includes('connected again')), 20_000);
    // And notifications flow again: the next advance shows on B within ms (2 s ceiling).
    expect((await a!.call('POST', '/__emulator/clock/advance', { body: { seconds: 60 } })).status).toBe(200);
    await until('B to show the advance made after it reconnected', async () => (await offsetOf(b!)) === 120, 2000);
    // A server restart and two reconnecting replicas on a shared 2-core machine: the whole's ceiling.
  }, 60_000);
});
