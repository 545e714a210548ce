import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreEngine } from '../helpers/pg-engine.js';
import { openPostgresEngine } from '../helpers/pg-engine.js';
import { saveNamedSnapshot, listNamedSnapshots } from '../../src/store/postgres/named-snapshots.js';
import type { PgHandle } from '../../src/store/postgres/handle.js';
import { clearPostgresData } from '../../src/store/postgres/reset.js';
import { exportPostgresSnapshot } from '../../src/store/postgres/snapshots.js';
import { DATA_TABLES } from '../../src/store/postgres/tables.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';
import { eventRow, invoiceRow, seedMerchant, T0 } from '../helpers/store-rows.js';
import { tempDir } from '../helpers/temp-dir.js';

// A reset on PostgreSQL (CONTRACT §8 "bounded"): one TRUNCATE of the data tables, whatever their size;
// meta, the migration record and named snapshots stay.
const server: PostgresServer = await startPostgres();
const dir = tempDir();

const engines: StoreEngine<PgHandle>[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

const count = async (db: PgHandle, table: string) => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)).rows[0]!.n);

describe('clearPostgresData', () => {
  it('empties 10,000 invoices and their events in one statement, keeping meta, migrations and named snapshots', async () => {
    const engine = await openPostgresEngine({ url: await server.createDatabase() });
    engines.push(engine);
    const { db } = engine;
    const merchant = await seedMerchant(engine);
    await engine.repos.meta.setMeta(db, 'identity', { partnerId: merchant.partner_id });
    // 10,000 invoices with an event each, in batches of multi-row INSERTs (seeding is not what is measured).
    for (let batch = 0; batch < 10; batch++) {
      const invoices = Array.from({ length: 1000 }, () => invoiceRow(merchant, { id: randomUUID() }));
      await db.insertInto('invoices').values(invoices).execute();
      await db
        .insertInto('events')
        .values(invoices.map((i) => eventRow(i, 1)))
        .execute();
    }
    const file = `${dir}/before-reset.sqlite`;
    await exportPostgresSnapshot(db, file, 'snapshot_clock_ms', T0);
    await saveNamedSnapshot(db, 'before-reset', file, T0);
    expect(await count(db, 'invoices')).toBe(10_000);
    expect(await count(db, 'events')).toBe(10_000);

    const started = performance.now();
    await clearPostgresData(db);
    const ms = performance.now() - started;
    console.log(`clearPostgresData: 10,000 invoices and 10,000 events emptied in ${ms.toFixed(1)} ms`);

    for (const table of DATA_TABLES) expect(await count(db, table), table).toBe(0);
    expect(await engine.repos.meta.getMeta(db, 'identity', (v): v is unknown => true)).toEqual({ partnerId: merchant.partner_id });
    expect(await count(db, 'kysely_migration')).toBeGreaterThan(0);
    expect((await listNamedSnapshots(db)).map((s) => s.name)).toEqual(['before-reset']);
    // Sequences go on from where they were: a new invoice's seq is new.
    const again = await seedMerchant(engine);
    await engine.repos.invoices.insertInvoice(db, invoiceRow(again));
    expect((await sql<{ seq: number }>`SELECT seq FROM invoices`.execute(db)).rows[0]!.seq).toBeGreaterThan(10_000);
  });
});
