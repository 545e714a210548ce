/**
 * CONTRACT §12 "Many replicas, one sandbox": the clock is one for every replica of a PostgreSQL
 * database. An advance through one replica shows on the others as soon as its answer came back
 * (ARCHITECTURE habit 13: the offset lives in the store, each replica's is a cache told by NOTIFY),
 * and an invoice two replicas expire at once records one `invoice.expired`.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ikey } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { replicaSet, until } from '../helpers/replicas.js';

const server = await startPostgres();
const replicas = replicaSet();

const clockOf = async (e: { call: (m: string, p: string) => Promise<{ body: { offsetSeconds: number } }> }) =>
  (await e.call('GET', '/__emulator/clock')).body.offsetSeconds;

describe('the clock across replicas', () => {
  it('an advance through A shows on B right after A answered, and B runs what fell due', async () => {
    const [a, b] = await replicas.start(await server.createDatabase(), 2);
    expect(await clockOf(b!)).toBe(0);
    const invoice = await b!.call('POST', '/v1/invoices', { key: b!.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '1' } });
    expect(invoice.status).toBe(201);
    const advanced = await a!.call('POST', '/__emulator/clock/advance', { body: { seconds: 86_400 } });
    expect(advanced.status).toBe(200);
    // A's advance expired B's invoice (the work is in the store, whoever runs it).
    expect(advanced.body.expired).toBe(1);
    // In order: A answered first, then B shows the advanced time (told within ms; 2 s is the ceiling).
    await until('B to show the advanced clock', async () => (await clockOf(b!)) === 86_400, 2000);
    const onB = await b!.call('GET', `/v1/invoices/${invoice.body.id}`, { key: b!.keys.test.merchantKey });
    expect(onB.body.status).toBe('EXPIRED');
    // And B's own advance goes on from the shared time, persisted for both.
    await b!.call('POST', '/__emulator/clock/advance', { body: { seconds: 60 } });
    await until('A to show B’s advance', async () => (await clockOf(a!)) === 86_460, 2000);
  });

  it('two replicas expiring the same invoice at once record one invoice.expired', async () => {
    const url = await server.createDatabase();
    const [a, b] = await replicas.start(url, 2);
    const created = await a!.call('POST', '/v1/invoices', { key: a!.keys.test.merchantKey, idempotencyKey: ikey(), body: { amount: '1' } });
    const id: string = created.body.id;
    // A third connection holds the invoice's row: both replicas' expiries reach it and wait, so
    // they run truly at once, whatever the machine's speed; then it lets go.
    const holder = new pg.Client({ connectionString: url });
    holder.on('error', () => {});
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM invoices WHERE id = $1 FOR UPDATE', [id]);
      const advances = [a!, b!].map((e) => e.call('POST', '/__emulator/clock/advance', { body: { seconds: 86_400 } }));
      await until(
        'both replicas to wait on the invoice’s row',
        async () => {
          // Asked outside the holder's transaction, which would see one snapshot of the statistics.
          const [row] = await a!.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
          return Number(row?.n) >= 2;
        },
        10_000,
      );
      await holder.query('COMMIT');
      const answers = await Promise.all(advances);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      expect(answers[0]!.body.expired + answers[1]!.body.expired).toBe(1);
    } finally {
      await holder.end();
    }
    const rows = await a!.query(`SELECT count(*) AS n FROM events WHERE invoice_id = '${id}' AND type = 'invoice.expired'`);
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it('advances through two replicas at once compose: one hour on each is two hours on both', async () => {
    const url = await server.createDatabase();
    const [a, b] = await replicas.start(url, 2);
    // A third connection holds the stored offset's lock: both advances walk their clocks, then wait to add
    // their hour to it, so they truly meet, whatever the machine's speed.
    const holder = new pg.Client({ connectionString: url });
    holder.on('error', () => {});
    await holder.connect();
    try {
      await holder.query('BEGIN');
      // The lock every read-modify-write of a meta entry takes first (store/postgres/claims.ts lockMeta).
      await holder.query("SELECT pg_advisory_xact_lock(1937138541, hashtext('clock_offset_ms'))");
      const advances = [a!, b!].map((e) => e.call('POST', '/__emulator/clock/advance', { body: { seconds: 3600 } }));
      await until(
        'both advances to wait on the stored offset',
        async () => {
          const [row] = await a!.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
          return Number(row?.n) >= 2;
        },
        10_000,
      );
      await holder.query('COMMIT');
      expect((await Promise.all(advances)).map((r) => r.status)).toEqual([200, 200]);
    } finally {
      await holder.end();
    }
    // Each answered with its own walk; the shared clock holds both.
    expect(await clockOf(a!)).toBe(7200);
    await until('B to show both advances', async () => (await clockOf(b!)) === 7200, 2000);
    const [stored] = await a!.query("SELECT value FROM meta WHERE key = 'clock_offset_ms'");
    expect(Number(stored!.value)).toBe(7_200_000);
  });
});
