/**
 * CONTRACT §12: replicas started together on an empty PostgreSQL database are one sandbox from the
 * start: one default partner, one merchant per environment, one set of default keys, which every
 * replica reports. Before the fix each wrote an identity of its own (both read "none yet" before
 * either committed), so the ready events disagreed on the keys (found by
 * test/reliability/cluster.test.ts, issue 28).
 *
 * A third connection holds the partners table (EXCLUSIVE: reads go on, inserts wait) until both
 * replicas' first starts wait on a lock, so the two run truly at once whatever the machine's speed.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/postgres/connect.js';
import { migratePostgres } from '../../src/store/postgres/migrate.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';
import { until } from '../helpers/replicas.js';

const server = await startPostgres();
const running: TestEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.stop()));
});

describe('replicas starting together on an empty database', () => {
  it('write one default identity: the same keys on both, one default partner', async () => {
    const url = await server.createDatabase();
    // The schema first (what the replicas' migration, under its own lock, would do): the race is the identity's.
    const db = openPostgres({ url });
    try {
      await migratePostgres(db);
    } finally {
      await db.destroy();
    }
    const holder = new pg.Client({ connectionString: url });
    const watcher = new pg.Client({ connectionString: url });
    await holder.connect();
    await watcher.connect();
    let started: PromiseSettledResult<TestEmulator>[];
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE partners IN EXCLUSIVE MODE');
      const starting = Promise.allSettled([startTestEmulator({ database: url }), startTestEmulator({ database: url })]);
      await until(
        'both first starts to wait on a lock',
        async () => {
          const { rows } = await watcher.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
          return Number(rows[0].n) >= 2;
        },
        10_000,
      );
      await holder.query('COMMIT');
      started = await starting;
    } finally {
      await holder.end();
      await watcher.end();
    }
    for (const s of started) if (s.status === 'fulfilled') running.push(s.value);
    const [a, b] = started.map((s) => {
      if (s.status === 'rejected') throw s.reason;
      return s.value;
    });
    expect(b!.keys).toEqual(a!.keys);
    const partners = await a!.query('SELECT count(*) AS n FROM partners');
    expect(Number(partners[0]!.n)).toBe(1);
    // And the control plane of each says so too (GET /__emulator/keys).
    const keysOnB = await b!.call('GET', '/__emulator/keys');
    expect(keysOnB.body).toEqual(a!.keys);
  });
});
