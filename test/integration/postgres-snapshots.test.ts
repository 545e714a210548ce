import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSnapshotFile, checkSnapshotSchema } from '../../src/server/snapshots/untrusted.js';
import type { StoreEngine } from '../helpers/pg-engine.js';
import { migrations } from '../../src/store/migrations/index.js';
import { openPostgresEngine } from '../helpers/pg-engine.js';
import type { PgHandle } from '../../src/store/postgres/handle.js';
import { exportPostgresSnapshot, importPostgresSnapshot } from '../../src/store/postgres/snapshots.js';
import { SNAPSHOT_TABLES } from '../../src/store/postgres/tables.js';
import { readSchema } from '../../src/store/expected-schema.js';
import { MIGRATION_TABLE } from '../../src/store/migrate.js';
import { backupTo, replaceAllRows } from '../../src/store/sqlite/snapshots.js';
import { openSqlite } from '../../src/store/sqlite.js';
import { openStore, type Store } from '../../src/store/sqlite/store.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';
import { seedEveryTable, sqliteRows } from '../helpers/snapshot-rows.js';
import { seedInvoice, seedMerchant, T0 } from '../helpers/store-rows.js';
import { tempDir } from '../helpers/temp-dir.js';

// Snapshots across engines (CONTRACT §12): the portable file is SQLite's on both. A file SQLite
// exported restores into PostgreSQL, PostgreSQL's export restores into SQLite, and every table's
// rows (values and SQLite storage classes) come back as they were; a failed import changes nothing.
const server: PostgresServer = await startPostgres();
const dir = tempDir();
const CLOCK_KEY = 'snapshot_clock_ms';
const CLOCK_AT = T0 + 42_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let files = 0;
const newFile = (name: string) => path.join(dir, `${++files}-${name}.sqlite`);

async function sqliteStore(): Promise<Store> {
  const store = await openStore({ file: newFile('store') });
  cleanups.push(() => store.close());
  return store;
}
async function pgEngine(): Promise<StoreEngine<PgHandle>> {
  const engine = await openPostgresEngine({ url: await server.createDatabase() });
  cleanups.push(() => engine.close());
  return engine;
}

/** A file's rows as sqliteRows reads them. */
function fileRows(file: string) {
  const db = openSqlite(file, { readonly: true, fileMustExist: true });
  try {
    return sqliteRows(db);
  } finally {
    db.close();
  }
}

/** Every snapshot table of a PostgreSQL database, ordered by primary key. */
async function pgRows(db: PgHandle): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of SNAPSHOT_TABLES) {
    const order = sql.join(table.key.map((c) => sql.ref(c)));
    out[table.name] = (await sql`SELECT * FROM ${sql.table(table.name)} ORDER BY ${order}`.execute(db)).rows;
  }
  return out;
}

/** A SQLite export of a store with a row in every table. */
async function seededExport(): Promise<{ store: Store; file: string }> {
  const store = await sqliteStore();
  seedEveryTable(store);
  const file = newFile('from-sqlite');
  await backupTo(store, file, CLOCK_KEY, CLOCK_AT);
  return { store, file };
}

describe('snapshots across engines', () => {
  it('list every table SQLite restores: the table lists cannot drift from the schema', async () => {
    const store = await sqliteStore();
    const tables = readSchema(store.sqlite)
      .filter((o) => o.type === 'table' && !o.name.startsWith(MIGRATION_TABLE))
      .map((o) => o.name);
    expect(SNAPSHOT_TABLES.map((t) => t.name).sort()).toEqual(tables.sort());
  });

  it('SQLite → PostgreSQL → SQLite gives back every row of every table, with the same values and storage classes', async () => {
    const { store, file } = await seededExport();
    const original = sqliteRows(store.sqlite);
    for (const rows of Object.values(original)) expect(rows.length).toBeGreaterThan(0);

    const engine = await pgEngine();
    expect(await importPostgresSnapshot(engine.db, file, false)).toEqual({ webhookUrls: [], heldDeliveries: 0 });
    const exported = newFile('from-postgres');
    await exportPostgresSnapshot(engine.db, exported, CLOCK_KEY, CLOCK_AT);

    // What `svc dev --snapshot` and a restore check first: the file is one svc wrote, of this release.
    checkSnapshotFile(exported);
    expect(await checkSnapshotSchema(exported)).toEqual(Object.keys(migrations));
    expect(fs.statSync(exported).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(`${exported}-wal`)).toBe(false);
    expect(fileRows(exported)).toEqual(fileRows(file));

    const restored = await sqliteStore();
    replaceAllRows(restored, exported, false);
    expect(sqliteRows(restored.sqlite)).toEqual(original);
  });

  it('PostgreSQL → SQLite → PostgreSQL gives back every row, and the sequences pass the restored ids', async () => {
    const source = await pgEngine();
    await importPostgresSnapshot(source.db, (await seededExport()).file, false);
    // Rows PostgreSQL numbered itself (identity values), beside the imported ones.
    const merchant = await seedMerchant(source);
    await seedInvoice(source, merchant);
    await seedInvoice(source, merchant, { status: 'PAID' });
    const before = await pgRows(source.db);

    const exported = newFile('from-postgres');
    await exportPostgresSnapshot(source.db, exported, CLOCK_KEY, CLOCK_AT);
    const laptop = await sqliteStore();
    replaceAllRows(laptop, exported, false);
    const again = newFile('from-sqlite-again');
    await backupTo(laptop, again, CLOCK_KEY, CLOCK_AT);

    const target = await pgEngine();
    await importPostgresSnapshot(target.db, again, false);
    const after = await pgRows(target.db);
    // meta included: the clock entry the exports write is the one the first import brought.
    expect(after).toEqual(before);

    // A new invoice and event get seqs past every restored one: lists keep newest first.
    const fresh = await seedInvoice(target, merchant);
    const maxSeq = Math.max(...(before.invoices as { seq: number }[]).map((r) => r.seq));
    expect((await target.repos.invoices.findInvoice(target.db, fresh.id))!.seq).toBeGreaterThan(maxSeq);
  });

  it('hold back an imported file’s pending deliveries and name its webhook URLs, as SQLite does', async () => {
    const { file } = await seededExport();
    const lite = await sqliteStore();
    const expected = replaceAllRows(lite, file, true);
    expect(expected.heldDeliveries).toBe(3);

    const engine = await pgEngine();
    expect(await importPostgresSnapshot(engine.db, file, true)).toEqual(expected);
    const exported = newFile('held');
    await exportPostgresSnapshot(engine.db, exported, CLOCK_KEY, CLOCK_AT);
    expect(fileRows(exported).deliveries).toEqual(sqliteRows(lite.sqlite).deliveries);
  });

  it('a failed import (a row breaking a foreign key, an integer beyond 2^53, a NUL) leaves PostgreSQL’s rows unchanged', async () => {
    const engine = await pgEngine();
    await importPostgresSnapshot(engine.db, (await seededExport()).file, false);
    await seedInvoice(engine, await seedMerchant(engine));
    const before = await pgRows(engine.db);

    const orphan = (await seededExport()).file;
    const db = openSqlite(orphan);
    db.pragma('foreign_keys = OFF'); // better-sqlite3 turns them on; SQLite itself would not check
    db.prepare("UPDATE events SET invoice_id = 'no-such-invoice' WHERE seq = 25").run();
    db.close();
    await expect(importPostgresSnapshot(engine.db, orphan, false)).rejects.toMatchObject({ code: '23503' });
    expect(await pgRows(engine.db)).toEqual(before);

    const huge = (await seededExport()).file;
    const db2 = openSqlite(huge);
    db2.prepare('UPDATE invoices SET expires_at = 9007199254740993 WHERE seq = 12').run();
    db2.close();
    await expect(importPostgresSnapshot(engine.db, huge, false)).rejects.toThrow(/holds 9007199254740993 in invoices\.expires_at/);
    expect(await pgRows(engine.db)).toEqual(before);

    // SQLite's text may hold U+0000 (svc refuses one in a body now; an older file or one made by hand
    // may still have it); PostgreSQL's cannot. The refusal names the column, and is the user's one
    // line (issue 40: it ended `svc dev --snapshot` with exit 4, a bug's).
    const nul = (await seededExport()).file;
    const db3 = openSqlite(nul);
    db3.prepare("UPDATE invoices SET reference_id = 'order' || char(0) || '1' WHERE seq = 12").run();
    db3.close();
    const refused = importPostgresSnapshot(engine.db, nul, false);
    await expect(refused).rejects.toThrow(/holds the character U\+0000 \(NUL\) in invoices\.reference_id, which svc never stores; nothing was changed$/);
    await expect(refused).rejects.toMatchObject({ name: 'UserError', code: 'snapshot_invalid' });
    expect(await pgRows(engine.db)).toEqual(before);
  });

  it('an export leaves no file behind when it fails', async () => {
    const engine = await pgEngine();
    await sql`DROP TABLE listeners`.execute(engine.db);
    const file = newFile('broken');
    await expect(exportPostgresSnapshot(engine.db, file, CLOCK_KEY, CLOCK_AT)).rejects.toThrow(/listeners is missing/);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(file)))).toEqual([]);
  });
});
