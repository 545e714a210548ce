/**
 * CONTRACT §9 snapshots: save, list, restore, delete, export, start from a file; the clock and keys
 * of the snapshot come back; deliveries of the discarded state are dropped, those of the restored
 * state resume; requests during a restore are answered. Real emulators, real files, real HTTP.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import { type Emulator, startEmulator } from '../../src/server/start.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Behaviour, type Receiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';
import { expectError } from '../helpers/api-response.js';
import { dataOf, expectRefused } from '../helpers/client-result.js';
import { freshPostgresDatabase, testEngine } from '../helpers/postgres-database.js';

const T0 = Date.UTC(2030, 0, 1);
const SECRET = 'whsec_snapshot_test_0123456789';
const emulators: Emulator[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await Promise.all(emulators.splice(0).map((e) => e.stop()));
});

async function emulator(options: Parameters<typeof startTestEmulator>[0] = {}): Promise<TestEmulator> {
  const emu = await startTestEmulator({ clock: manualClock(T0), ...options });
  emulators.push(emu);
  return emu;
}

/**
 * An emulator on the PostgreSQL database `database` (a URL): startTestEmulator passes its in-memory
 * default `db` beside a `database`, which startEmulator refuses, so these are started here.
 */
async function onDatabase(database: string, options: Parameters<typeof startEmulator>[0] = {}): Promise<Emulator> {
  const emu = await startEmulator({ port: 0, clock: manualClock(T0), database, ...options });
  emulators.push(emu);
  return emu;
}

async function receiver(behaviour?: Behaviour): Promise<Receiver> {
  const r = await startReceiver(behaviour);
  receivers.push(r);
  return r;
}

// Through the typed client, as users call the control plane; raw HTTP only for the exported file
// (a download, which the client does not offer).
const invoice = async (emu: Emulator) => dataOf(await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '10.00' } }), 201);
const getInvoice = (emu: Emulator, id: string) => emu.client.test.getInvoice({ params: { id } });
const save = (emu: Emulator, name: string) => emu.client.test.saveSnapshot({ body: { name } });
const restore = (emu: Emulator, name: string) => emu.client.test.restoreSnapshot({ params: { name } });
const snapshots = async (emu: Emulator) => dataOf(await emu.client.test.listSnapshots()).data;

describe('the control plane', () => {
  it('saves, lists, restores and deletes: the data is the snapshot’s again', async () => {
    const emu = await emulator();
    const kept = await invoice(emu);
    const saved = dataOf(await save(emu, 'before-b'), 201);
    expect(saved).toEqual({ name: 'before-b', createdAt: new Date(T0).toISOString(), bytes: expect.any(Number) });
    expect(saved.bytes).toBeGreaterThan(4096);
    const dropped = await invoice(emu);

    const restored = dataOf(await restore(emu, 'before-b'));
    expect(restored).toEqual({ status: 'restored', snapshot: saved, now: new Date(T0).toISOString() });
    expect((await getInvoice(emu, kept.id)).status).toBe(200);
    expectRefused(await getInvoice(emu, dropped.id), 404, 'invoice_not_found');

    expect(await snapshots(emu)).toEqual([saved]);
    expect((await emu.client.test.deleteSnapshot({ params: { name: 'before-b' } })).status).toBe(204);
    expect(await snapshots(emu)).toEqual([]);
    expectRefused(await restore(emu, 'before-b'), 404, 'snapshot_not_found');
    expectRefused(await emu.client.test.deleteSnapshot({ params: { name: 'before-b' } }), 404, 'snapshot_not_found');
    // The file is a download, which the typed client does not offer: raw HTTP.
    expectError(await emu.call('GET', '/__emulator/snapshots/before-b/file'), 404, 'snapshot_not_found');
  });

  it('refuses a bad name with validation_failed naming name; a name no snapshot can have is not found', async () => {
    const emu = await emulator();
    for (const name of ['', '.hidden', '../up', 'a/b', 'x'.repeat(65), 'sp ace']) expectRefused(await save(emu, name), 400, 'validation_failed', 'name');
    // @ts-expect-error: name is required, and the client's type says so; the emulator must refuse its absence too
    expectRefused(await emu.client.test.saveSnapshot({ body: {} }), 400, 'validation_failed', 'name');
    expectRefused(await restore(emu, '.hidden'), 404, 'snapshot_not_found');
    expectRefused(await restore(emu, 'bad name'), 404, 'snapshot_not_found'); // sent as bad%20name
    expect(await snapshots(emu)).toEqual([]);
  });

  it('saving under a taken name replaces that snapshot', async () => {
    const emu = await emulator();
    dataOf(await save(emu, 'one'), 201);
    const inv = await invoice(emu);
    dataOf(await save(emu, 'one'), 201);
    dataOf(await emu.client.test.resetEmulator());
    dataOf(await restore(emu, 'one'));
    expect((await getInvoice(emu, inv.id)).status).toBe(200);
    expect((await snapshots(emu)).map((s) => s.name)).toEqual(['one']);
  });

  it('puts back the clock and the keys of the snapshot', async () => {
    const emu = await emulator();
    dataOf(await save(emu, 'at-t0'), 201);
    dataOf(await emu.client.test.advanceClock({ body: { seconds: 3600 } }));
    const partner = dataOf(await emu.client.test.createPartner({ body: { name: 'Later' } }), 201);
    expect((await emu.client.test.listMerchants({ key: partner.test.partnerKey })).status).toBe(200);

    dataOf(await restore(emu, 'at-t0'));
    expect(dataOf(await emu.client.test.getClock()).now).toBe(new Date(T0).toISOString());
    expectRefused(await emu.client.test.listMerchants({ key: partner.test.partnerKey }), 401, 'unauthorized');
    expect((await emu.client.test.listMerchants()).status).toBe(200);
  });

  it('drops the deliveries of the discarded state and resumes those of the restored one', async () => {
    const emu = await emulator();
    let failing = true;
    const r = await receiver(() => ({ status: failing ? 500 : 200 }));
    dataOf(await emu.client.test.putWebhook({ body: { url: r.url, secret: SECRET } }));
    const kept = await invoice(emu);
    await r.waitFor(1);
    dataOf(await save(emu, 'retrying'), 201);
    const dropped = await invoice(emu);
    await r.waitFor(2);

    dataOf(await restore(emu, 'retrying'));
    failing = false;
    dataOf(await emu.client.test.advanceClock({ body: { seconds: 3 * 3600 } }));
    const after = r.requests.slice(2).map((q) => JSON.parse(q.rawBody).data.invoiceId);
    expect(after.length).toBeGreaterThan(0);
    expect(new Set(after)).toEqual(new Set([kept.id]));
    const deliveries = dataOf(await emu.client.test.listDeliveries()).data;
    // invoice.created retried and delivered; invoice.expired, as the kept invoice expired on the way.
    expect(deliveries.map((d) => [d.invoiceId, d.eventType, d.status])).toEqual([
      [kept.id, 'invoice.expired', 'succeeded'],
      [kept.id, 'invoice.created', 'succeeded'],
    ]);
    expect(JSON.stringify(deliveries)).not.toContain(dropped.id);
  });

  it('answers every request sent during a restore, each from one state or the other', async () => {
    const emu = await emulator();
    for (let i = 0; i < 200; i++) await invoice(emu);
    dataOf(await save(emu, 'busy'), 201);
    const creates = Array.from({ length: 40 }, () => emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }));
    const restoring = restore(emu, 'busy');
    const statuses = (await Promise.all(creates)).map((res) => res.status);
    dataOf(await restoring);
    expect(new Set(statuses)).toEqual(new Set([201]));
  });
});

describe('in-process', () => {
  it('snapshot, restore, snapshots and deleteSnapshot do what the control plane does', async () => {
    const emu = await emulator();
    const kept = await invoice(emu);
    const info = await emu.snapshot('seeded');
    expect(info).toMatchObject({ name: 'seeded', createdAt: new Date(T0).toISOString() });
    await invoice(emu);
    await emu.advanceClock(60);
    expect(await emu.restore('seeded')).toEqual(info);
    expect(emu.clock.now()).toBe(T0);
    const list = dataOf(await emu.client.test.listInvoices()).data;
    expect(list.map((i) => i.id)).toEqual([kept.id]);
    expect(emu.snapshots()).toEqual([info]);
    emu.deleteSnapshot('seeded');
    await expect(emu.restore('seeded')).rejects.toMatchObject({ status: 404, code: 'snapshot_not_found' });
    await expect(emu.snapshot('no/slash')).rejects.toMatchObject({ status: 400, code: 'validation_failed' });
  });

  // SQLite's in-memory emulator only: on PostgreSQL named snapshots are rows of the database.
  // Issue 40: a SIGKILL left the private folder they used to be kept in, in /tmp.
  it.skipIf(testEngine() === 'postgres')(
    'an in-memory emulator keeps its snapshots in memory: nothing of it in the temporary folder while it runs',
    async () => {
      const ours = () => fs.readdirSync(os.tmpdir()).filter((d) => /^svc-snapshots?-/.test(d) && d.includes(`-${process.pid}-`));
      const before = ours();
      const emu = await startTestEmulator({ clock: manualClock(T0) });
      await emu.snapshot('kept');
      expect(ours()).toEqual(before);
      expect(emu.snapshots().map((s) => s.name)).toEqual(['kept']);
      expect(emu.snapshots()[0]!.bytes).toBeGreaterThan(0);
      await emu.restore('kept');
      expect(ours()).toEqual(before);
      await emu.stop();
    },
  );
});

describe('temporary files', () => {
  // Issue 40: a container's read-only /tmp made a save answer 500 internal_error (EROFS from mkdtemp).
  it('a save, restore or export that cannot make its temporary folder answers 507 temporary_folder_unavailable naming it; nothing changes', async () => {
    const emu = await emulator();
    await emu.snapshot('before');
    const unwritable = path.join(tempDir(), 'not-there', 'tmp');
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = unwritable;
    let answers: { status: number; body: any; text: string }[];
    try {
      answers = [
        await emu.call('POST', '/__emulator/snapshots', { body: { name: 'after' } }),
        await emu.call('POST', '/__emulator/snapshots/before/restore'),
        await emu.call('GET', '/__emulator/snapshots/before/file'),
      ];
    } finally {
      process.env.TMPDIR = saved;
    }
    for (const res of answers) {
      expect(res.status, res.text).toBe(507);
      expect(res.body.error.code).toBe('temporary_folder_unavailable');
      expect(res.body.error.message).toContain(unwritable);
      expect(res.body.error.message).toContain('TMPDIR');
    }
    expect(emu.snapshots().map((s) => s.name)).toEqual(['before']);
  });

  it('save, export, restore and a failed restore leave none of this process behind', async () => {
    // On PostgreSQL each passes through a private temporary copy (the stored bytes written out).
    const ours = () => fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith(`svc-snapshot-${process.pid}-`));
    const before = ours();
    const emu = await emulator();
    await invoice(emu);
    await emu.snapshot('passing');
    const res = await fetch(`${emu.url}/__emulator/snapshots/passing/file`);
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 15)
        .toString('latin1'),
    ).toBe('SQLite format 3');
    dataOf(await restore(emu, 'passing'));
    expectRefused(await restore(emu, 'missing'), 404, 'snapshot_not_found');
    expect(ours()).toEqual(before);
  });
});

describe('a file database', () => {
  it('keeps snapshots beside the file, mode 0600, across restarts', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'dev.db');
    const first = await emulator({ db });
    const inv = await invoice(first);
    await first.snapshot('kept');
    await first.reset();
    await first.stop();
    emulators.splice(emulators.indexOf(first), 1);

    const file = path.join(`${db}-snapshots`, 'kept.sqlite');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const second = await emulator({ db });
    expect(second.snapshots().map((s) => s.name)).toEqual(['kept']);
    expectRefused(await getInvoice(second, inv.id), 404, 'invoice_not_found');
    await second.restore('kept');
    expect((await getInvoice(second, inv.id)).status).toBe(200);
  });
});

describe('export, and starting from a file', () => {
  it('exports an SQLite file; a new emulator started from it has its data, clock and keys', async () => {
    const emu = await emulator();
    const inv = await invoice(emu);
    await emu.advanceClock(120);
    await emu.snapshot('share');
    const res = await fetch(`${emu.url}/__emulator/snapshots/share/file`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.sqlite3');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
    const file = path.join(tempDir(), 'bug.sqlite');
    fs.writeFileSync(file, bytes);

    const other = await emulator({ snapshot: file, clock: manualClock(Date.UTC(2040, 0, 1)) });
    expect(other.keys).toEqual(emu.keys);
    expect(other.clock.now()).toBe(T0 + 120_000);
    expect(dataOf(await getInvoice(other, inv.id)).id).toBe(inv.id);
  });

  it('refuses a file that is not an svc snapshot, in one line naming it, and leaves it as it was', async () => {
    const file = path.join(tempDir(), 'notes.txt');
    fs.writeFileSync(file, 'not a database\n');
    await expect(startTestEmulator({ snapshot: file })).rejects.toThrow(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('not a database\n');
    await expect(startTestEmulator({ snapshot: path.join(tempDir(), 'missing.sqlite') })).rejects.toThrow(/missing\.sqlite/);
  });
});

// PostgreSQL only: a second replica on the same database (the run's PostgreSQL server).
describe.runIf(testEngine() === 'postgres')('replicas on one PostgreSQL database (CONTRACT §12)', () => {
  it('list, restore and delete the same named snapshots; the in-process list is what this process knows', async () => {
    const database = await freshPostgresDatabase();
    const one = await onDatabase(database);
    const two = await onDatabase(database);
    const kept = await invoice(one);
    const saved = await one.snapshot('shared');
    const dropped = await invoice(two);

    expect(await snapshots(two)).toEqual([saved]);
    // two's synchronous list learnt of it from the control plane's list just above.
    expect(two.snapshots()).toEqual([saved]);
    expect(await two.restore('shared')).toEqual(saved);
    expect((await getInvoice(one, kept.id)).status).toBe(200);
    expectRefused(await getInvoice(one, dropped.id), 404, 'invoice_not_found');

    // The synchronous delete: gone from this process's list at once, from the database before
    // anything this process does next with snapshots.
    two.deleteSnapshot('shared');
    expect(two.snapshots()).toEqual([]);
    await expect(two.restore('shared')).rejects.toMatchObject({ status: 404, code: 'snapshot_not_found' });
    expect(await snapshots(one)).toEqual([]);
    expect(() => one.deleteSnapshot('never-saved')).toThrow(expect.objectContaining({ status: 404, code: 'snapshot_not_found' }));
  });
});

// The contract's promise (§12 "Snapshots move between backends"): needs the run's PostgreSQL server.
describe.runIf(testEngine() === 'postgres')('across engines', () => {
  const invoiceIds = async (emu: Emulator) => dataOf(await emu.client.test.listInvoices()).data.map((i) => i.id);

  it('a PostgreSQL state exported on exit starts a SQLite emulator, and a SQLite export restores into PostgreSQL', async () => {
    const dir = tempDir();
    const fromPostgres = path.join(dir, 'from-postgres.sqlite');
    const postgres = await emulator({ exportOnExit: fromPostgres });
    const first = await invoice(postgres);
    await postgres.advanceClock(90);
    await postgres.stop();
    emulators.splice(emulators.indexOf(postgres), 1);

    // A file database: `db` names SQLite in either project.
    const sqlite = await emulator({ db: path.join(dir, 'laptop.db'), snapshot: fromPostgres, clock: manualClock(Date.UTC(2040, 0, 1)) });
    expect(sqlite.keys).toEqual(postgres.keys);
    expect(sqlite.clock.now()).toBe(T0 + 90_000);
    expect(await invoiceIds(sqlite)).toEqual([first.id]);

    const second = await invoice(sqlite);
    await sqlite.snapshot('back');
    const fromSqlite = path.join(dir, 'from-sqlite.sqlite');
    fs.writeFileSync(fromSqlite, Buffer.from(await (await fetch(`${sqlite.url}/__emulator/snapshots/back/file`)).arrayBuffer()));

    const again = await onDatabase(await freshPostgresDatabase(), { snapshot: fromSqlite, clock: manualClock(Date.UTC(2040, 0, 1)) });
    expect(again.keys).toEqual(postgres.keys);
    expect(again.clock.now()).toBe(T0 + 90_000);
    expect(await invoiceIds(again)).toEqual(await invoiceIds(sqlite));
    expect(new Set(await invoiceIds(again))).toEqual(new Set([first.id, second.id]));
    // New invoices there follow the restored ones (the sequences moved past them).
    const third = await invoice(again);
    expect((await invoiceIds(again)).length).toBe(3);
    expect(await invoiceIds(again)).toContain(third.id);
  });
});
