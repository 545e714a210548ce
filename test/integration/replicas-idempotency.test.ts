/**
 * CONTRACT §2 and §12: one Idempotency-Key sent to two replicas at once makes one resource, and the
 * loser of the race answers as if it had arrived second: the winner's answer replayed (200,
 * `Idempotent-Replayed: true`), or 422 `idempotency_key_reused` for another body. Each replica's
 * in-process lock cannot see the other's request, so both pass the lookup and both create; the
 * primary key on the scope decides at commit (StoreConflictError). Before the fix the loser answered
 * 500 (found by test/reliability/cluster.test.ts, issue 28).
 *
 * A third connection holds the idempotency table (EXCLUSIVE: reads go on, inserts wait) until both
 * creates wait on it, so the two run truly at once whatever the machine's speed. Raw calls: the test
 * reads the replay header and the answers' bytes.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { TestEmulator } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet, until } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();

/** Sends one create to each of `emulators` while the idempotency table is held, then lets go. */
async function raceOneKey(url: string, emulators: TestEmulator[], bodies: Record<string, unknown>[]) {
  const holder = new pg.Client({ connectionString: url });
  const watcher = new pg.Client({ connectionString: url });
  holder.on('error', () => {});
  watcher.on('error', () => {});
  await holder.connect();
  await watcher.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE idempotency_keys IN EXCLUSIVE MODE');
    const sent = emulators.map((e, i) =>
      e.call('POST', '/v1/partner/invoices', { key: e.keys.test.partnerKey, idempotencyKey: 'one-key-two-replicas', body: bodies[i] }),
    );
    await until(
      'both creates to wait on the idempotency table',
      async () => {
        const { rows } = await watcher.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
        return Number(rows[0].n) >= emulators.length;
      },
      10_000,
    );
    await holder.query('COMMIT');
    return await Promise.all(sent);
  } finally {
    await holder.end();
    await watcher.end();
  }
}

describe('one Idempotency-Key at two replicas at once', () => {
  it('makes one invoice: one 201, and the other replica replays it', async () => {
    const url = await server.createDatabase();
    const [a, b] = await replicas.start(url, 2);
    const body = { merchantId: a!.keys.test.merchantId, amount: '5.00', referenceId: 'raced' };
    const answers = await raceOneKey(url, [a!, b!], [body, body]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 201]);
    const [first, replayed] = answers[0]!.status === 201 ? answers : [answers[1]!, answers[0]!];
    expect(replayed!.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed!.text).toBe(first!.text);
    const rows = await a!.query("SELECT count(*) AS n FROM invoices WHERE reference_id = 'raced'");
    expect(Number(rows[0]!.n)).toBe(1);
    const events = await a!.query("SELECT count(*) AS n FROM events WHERE type = 'invoice.created'");
    expect(Number(events[0]!.n)).toBe(1);
  });

  it('with another body, the loser answers 422 idempotency_key_reused and creates nothing', async () => {
    const url = await server.createDatabase();
    const [a, b] = await replicas.start(url, 2);
    const body = (amount: string) => ({ merchantId: a!.keys.test.merchantId, amount, referenceId: 'raced' });
    const answers = await raceOneKey(url, [a!, b!], [body('5.00'), body('6.00')]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(answers.find((r) => r.status === 422)!.body.error.code).toBe('idempotency_key_reused');
    const rows = await a!.query("SELECT count(*) AS n FROM invoices WHERE reference_id = 'raced'");
    expect(Number(rows[0]!.n)).toBe(1);
  });
});
