import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreEngine } from '../helpers/pg-engine.js';
import { openPostgresEngine } from '../helpers/pg-engine.js';
import { deleteNamedSnapshot, fetchNamedSnapshot, listNamedSnapshots, saveNamedSnapshot } from '../../src/store/postgres/named-snapshots.js';
import type { PgHandle } from '../../src/store/postgres/handle.js';
import { exportPostgresSnapshot, importPostgresSnapshot } from '../../src/store/postgres/snapshots.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';
import { seedInvoice, seedMerchant, T0 } from '../helpers/store-rows.js';
import { tempDir } from '../helpers/temp-dir.js';

// Named snapshots on PostgreSQL live in the database (migration 0002-snapshots), so that every
// replica lists, restores and deletes the same ones (CONTRACT §12); the bytes are the portable file.
const server: PostgresServer = await startPostgres();
const dir = tempDir();

const engines: StoreEngine<PgHandle>[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});
async function engineOn(url: string): Promise<StoreEngine<PgHandle>> {
  const engine = await openPostgresEngine({ url });
  engines.push(engine);
  return engine;
}

let files = 0;
const newFile = (name: string) => path.join(dir, `${++files}-${name}.sqlite`);

/** The engine's state exported to a fresh file. */
async function exported(engine: StoreEngine<PgHandle>, at: number): Promise<string> {
  const file = newFile('export');
  await exportPostgresSnapshot(engine.db, file, 'snapshot_clock_ms', at);
  return file;
}

describe('named snapshots on PostgreSQL', () => {
  it('save a file’s bytes under a name; another replica lists and fetches them, mode 0600', async () => {
    const url = await server.createDatabase();
    const [one, two] = [await engineOn(url), await engineOn(url)];
    const merchant = await seedMerchant(one);
    const invoice = await seedInvoice(one, merchant);
    const file = await exported(one, T0);

    const saved = await saveNamedSnapshot(one.db, 'before-pay', file, T0);
    expect(saved).toEqual({ name: 'before-pay', createdAt: new Date(T0).toISOString(), bytes: fs.statSync(file).size });
    expect(await listNamedSnapshots(two.db)).toEqual([saved]);

    const fetched = newFile('fetched');
    fs.writeFileSync(fetched, 'an older file, readable by all', { mode: 0o644 });
    expect(await fetchNamedSnapshot(two.db, 'before-pay', fetched)).toEqual(saved);
    expect(fs.readFileSync(fetched).equals(fs.readFileSync(file))).toBe(true);
    expect(fs.statSync(fetched).mode & 0o777).toBe(0o600);

    // The fetched file restores: the invoice is back after the state was changed.
    await one.db.deleteFrom('invoices').execute();
    await importPostgresSnapshot(two.db, fetched, false);
    expect((await one.repos.invoices.findInvoice(one.db, invoice.id))?.id).toBe(invoice.id);
  });

  it('list newest first by the emulator time taken at, then by name; a save over a name replaces it', async () => {
    const engine = await engineOn(await server.createDatabase());
    const file = await exported(engine, T0);
    await saveNamedSnapshot(engine.db, 'b', file, T0);
    await saveNamedSnapshot(engine.db, 'a', file, T0);
    await saveNamedSnapshot(engine.db, 'old', file, T0 - 1000);
    await saveNamedSnapshot(engine.db, 'new', file, T0 + 1000);
    expect((await listNamedSnapshots(engine.db)).map((s) => s.name)).toEqual(['new', 'a', 'b', 'old']);

    await seedMerchant(engine);
    const bigger = await exported(engine, T0 + 2000);
    await saveNamedSnapshot(engine.db, 'old', bigger, T0 + 2000);
    const listed = await listNamedSnapshots(engine.db);
    expect(listed.map((s) => s.name)).toEqual(['old', 'new', 'a', 'b']);
    expect(listed[0]).toEqual({ name: 'old', createdAt: new Date(T0 + 2000).toISOString(), bytes: fs.statSync(bigger).size });
    const fetched = newFile('fetched');
    await fetchNamedSnapshot(engine.db, 'old', fetched);
    expect(fs.readFileSync(fetched).equals(fs.readFileSync(bigger))).toBe(true);
  });

  it('delete one by name, and answer false or null for a name there is none of, writing no file', async () => {
    const engine = await engineOn(await server.createDatabase());
    const file = await exported(engine, T0);
    await saveNamedSnapshot(engine.db, 'keep', file, T0);
    await saveNamedSnapshot(engine.db, 'drop', file, T0);
    expect(await deleteNamedSnapshot(engine.db, 'drop')).toBe(true);
    expect(await deleteNamedSnapshot(engine.db, 'drop')).toBe(false);
    expect(await deleteNamedSnapshot(engine.db, '../etc')).toBe(false);
    expect((await listNamedSnapshots(engine.db)).map((s) => s.name)).toEqual(['keep']);
    const target = newFile('none');
    expect(await fetchNamedSnapshot(engine.db, 'drop', target)).toBeNull();
    expect(fs.existsSync(target)).toBe(false);
  });

  it('refuse to store a name no snapshot can have', async () => {
    const engine = await engineOn(await server.createDatabase());
    const file = await exported(engine, T0);
    await expect(saveNamedSnapshot(engine.db, '.hidden', file, T0)).rejects.toThrow(/not a snapshot name/);
    expect(await listNamedSnapshots(engine.db)).toEqual([]);
  });
});
