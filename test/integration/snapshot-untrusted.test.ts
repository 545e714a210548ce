/**
 * CONTRACT §8 "Imported snapshot files are untrusted": a file from a bug report is a stranger's. Its
 * schema must be exactly one svc wrote (a view, trigger, extra table or column, or a table named
 * with `"` is refused in one line, nothing changed), and nothing it carries is sent until the user
 * resends it. Files are real exports, then crafted with better-sqlite3 in a temp folder.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock/clock.js';
import { migrate } from '../../src/store/migrate.js';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { testEngine } from '../helpers/postgres-database.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

const T0 = Date.UTC(2030, 0, 1);
const SECRET = 'whsec_snapshot_test_0123456789';
const emulators: TestEmulator[] = [];
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
 * A real export whose webhook points at `r`, with one delivered invoice.created; `craft` then edits
 * the file as a stranger could.
 */
async function exportedFile(r: Receiver, craft?: (db: Database.Database) => void): Promise<string> {
  const emu = await emulator();
  expect((await emu.client.test.putWebhook({ body: { url: r.url, secret: SECRET } })).status).toBe(200);
  const created = await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '10.00' } });
  expect(created.status).toBe(201);
  await r.waitFor(1);
  await emu.snapshot('share');
  const file = path.join(tempDir(), 'bug-report.sqlite');
  // Raw HTTP: the exported file is a download, which the typed client does not offer.
  fs.writeFileSync(file, Buffer.from(await (await fetch(`${emu.url}/__emulator/snapshots/share/file`)).arrayBuffer()));
  if (craft) {
    const db = new Database(file);
    try {
      craft(db);
    } finally {
      db.close();
    }
  }
  return file;
}

/** Every delivery of the file made pending again and due long ago: what a crafted file carries. */
const pendingAgain = (db: Database.Database) => {
  db.prepare("UPDATE deliveries SET status = 'pending', next_attempt_at = 0, attempt_count = 0, scheduled_attempts = 0").run();
};

/**
 * An emulator with `dropIn`, which adds a file to its named snapshots as it is, unchecked: as a
 * stranger's file lands among them (dropped into SQLite's folder beside a file database; on
 * PostgreSQL, a row of the `snapshots` table written by another replica or by hand).
 */
async function withDropIn(): Promise<{ emu: TestEmulator; dropIn(name: string, file: string): Promise<void> }> {
  if (testEngine() === 'postgres') {
    const emu = await emulator();
    return {
      emu,
      dropIn: async (name, file) => {
        const bytes = fs.readFileSync(file);
        await emu.query(
          `INSERT INTO snapshots (name, taken_at, size, data, created_at) VALUES ('${name}', ${T0}, ${bytes.length}, decode('${bytes.toString('hex')}', 'hex'), 0)`,
        );
      },
    };
  }
  const dir = tempDir();
  const emu = await emulator({ db: path.join(dir, 'own.sqlite') });
  fs.mkdirSync(path.join(dir, 'own.sqlite-snapshots'));
  return { emu, dropIn: async (name, file) => fs.copyFileSync(file, path.join(dir, 'own.sqlite-snapshots', `${name}.sqlite`)) };
}

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('what an imported file carries is not sent', () => {
  it('its pending deliveries stay with the receiver untouched until the user resends one', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const file = await exportedFile(r, pendingAgain);
    const before = r.requests.length;

    const emu = await emulator({ snapshot: file });
    expect(emu.imported).toEqual({ webhookUrls: [r.url], heldDeliveries: 1 });
    // Moves the clock and runs what falls due before it answers: a scheduled attempt would be sent by now.
    expect((await emu.client.test.advanceClock({ body: { seconds: 600 } })).status).toBe(200);
    expect(r.requests.length).toBe(before);
    const held = dataOf(await emu.client.test.listDeliveries()).data[0]!;
    expect(held).toMatchObject({ status: 'pending', nextAttemptAt: null, url: r.url });

    // Its configuration arrived disabled (issue 40): a resend waits for the user to enable it, and a
    // new event goes nowhere meanwhile.
    expect(dataOf(await emu.client.test.getWebhook())).toMatchObject({ url: r.url, enabled: false });
    expect((await emu.client.test.resendDelivery({ params: { id: held.id } })).status).toBe(409);
    dataOf(await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
    expect(dataOf(await emu.client.test.listDeliveries()).data).toHaveLength(1);
    dataOf(await emu.client.test.putWebhook({ body: { url: r.url, enabled: true } }));
    const resent = dataOf(await emu.client.test.resendDelivery({ params: { id: held.id } }));
    expect(resent.status).toBe('succeeded');
    expect(r.requests.length).toBe(before + 1);
  });

  it('its webhook configurations arrive disabled, custom headers and all, in both environments', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const file = await exportedFile(r, (db) => {
      db.prepare('UPDATE webhook_configs SET custom_headers = ?').run(JSON.stringify({ Authorization: 'Bearer from-the-file', 'Metadata-Flavor': 'Google' }));
      const live: Record<string, unknown> = {
        ...(db.prepare('SELECT * FROM webhook_configs').get() as Record<string, unknown>),
        id: crypto.randomUUID(),
        environment: 'live',
      };
      live.url = 'https://hooks.example.com/from-the-file';
      db.prepare(
        `INSERT INTO webhook_configs (${Object.keys(live).join(', ')}) VALUES (${Object.keys(live)
          .map(() => '?')
          .join(', ')})`,
      ).run(Object.values(live));
    });
    const emu = await emulator({ snapshot: file });
    expect(emu.imported?.webhookUrls).toEqual([r.url, 'https://hooks.example.com/from-the-file']);
    expect(dataOf(await emu.client.test.getWebhook())).toMatchObject({ url: r.url, enabled: false });
    expect(dataOf(await emu.client.live.getWebhook())).toMatchObject({ url: 'https://hooks.example.com/from-the-file', enabled: false });
    const before = r.requests.length;
    dataOf(await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '1.00' } }), 201);
    expect((await emu.client.test.advanceClock({ body: { seconds: 60 } })).status).toBe(200);
    expect(r.requests.length).toBe(before);
  });

  it('a restore by name resumes the snapshot’s deliveries as before (it is the emulator’s own save)', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const { emu, dropIn } = await withDropIn();
    await dropIn('mine', await exportedFile(r, pendingAgain));
    const before = r.requests.length;
    expect((await emu.client.test.restoreSnapshot({ params: { name: 'mine' } })).status).toBe(200);
    await r.waitFor(before + 1);
  });
});

/** What a stranger can put in a file besides svc's own schema. */
const CRAFTED: [string, (db: Database.Database) => void, RegExp][] = [
  ['a view', (db) => db.exec('CREATE VIEW recent AS SELECT * FROM invoices'), /objects svc never creates \(view "recent"\)/],
  [
    'a never-ending view named like the migration record',
    (db) =>
      db.exec(`DROP TABLE kysely_migration;
        CREATE VIEW kysely_migration AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT '0001-initial' AS name FROM n`),
    /no record of svc migrations/,
  ],
  ['a trigger', (db) => db.exec('CREATE TRIGGER gone AFTER DELETE ON invoices BEGIN SELECT 1; END'), /objects svc never creates \(trigger "gone"\)/],
  ['an extra table', (db) => db.exec('CREATE TABLE extra (x)'), /objects svc never creates \(table "extra"\)/],
  ['an extra column', (db) => db.exec('ALTER TABLE invoices ADD COLUMN note TEXT'), /table "invoices" differs/],
  ['an extra index', (db) => db.exec('CREATE INDEX by_amount ON invoices (amount)'), /index "by_amount"/],
  ['a table named with a double quote', (db) => db.exec('CREATE TABLE "x"" FROM invoices; --" (y)'), /objects svc never creates \(table "x\\" FROM/],
];

describe('a schema svc did not write is refused, nothing changed', () => {
  it.each(CRAFTED)('starting from a file with %s: one line naming the file', async (_what, craft, why) => {
    const r = await startReceiver();
    receivers.push(r);
    const file = await exportedFile(r, (db) => {
      pendingAgain(db);
      craft(db);
    });
    const hash = sha(file);
    const before = r.requests.length;
    const error = await startTestEmulator({ snapshot: file }).then(
      (emu) => {
        emulators.push(emu);
        return null;
      },
      (e: Error) => e,
    );
    expect(error?.message).toMatch(why);
    expect(error?.message).toContain(file);
    expect(error?.message).not.toContain('\n');
    expect(sha(file)).toBe(hash);
    expect(r.requests.length).toBe(before);
  });

  it.each(CRAFTED)('restoring a file with %s: 422 snapshot_invalid, the state as it was', async (_what, craft, why) => {
    const r = await startReceiver();
    receivers.push(r);
    const { emu, dropIn } = await withDropIn();
    const kept = dataOf(await emu.client.test.createInvoice({ idempotencyKey: ikey(), body: { amount: '3.00' } }), 201);
    await dropIn('dropped-in', await exportedFile(r, craft));
    const res = await emu.client.test.restoreSnapshot({ params: { name: 'dropped-in' } });
    expect(res.status, JSON.stringify(res)).toBe(422);
    if (res.ok) return;
    expect(res.error.code).toBe('snapshot_invalid');
    expect(res.error.message).toMatch(why);
    // On PostgreSQL the file checked is a temporary copy of the row: the message names the snapshot instead.
    if (testEngine() === 'postgres') expect(res.error.message).toContain('snapshot dropped-in (stored in the database) ');
    expect((await emu.client.test.getInvoice({ params: { id: kept.id } })).status).toBe(200);
  });
});

/** Values a stranger can put in svc's own columns that the API would never have stored (issue 40). */
const BAD_VALUES: [string, (db: Database.Database) => void, RegExp][] = [
  [
    'a 50 MB referenceId',
    (db) => db.prepare('UPDATE invoices SET reference_id = ?').run('x'.repeat(50 * 1024 * 1024)),
    /invoices\.reference_id is 52,428,800 characters long \(the limit is 255\)/,
  ],
  [
    'a NUL in a reference id',
    (db) => db.prepare('UPDATE invoices SET reference_id = ?').run('order\u0000-1'),
    /invoices\.reference_id holds the character U\+0000/,
  ],
  ['a NUL in a partner name', (db) => db.prepare('UPDATE partners SET name = ?').run('Acme\u0000'), /partners\.name holds the character U\+0000/],
  [
    'bytes for a merchant name',
    (db) => db.prepare('UPDATE merchants SET name = ?').run(Buffer.from([0xde, 0xad])),
    /merchants\.name holds something other than text/,
  ],
  [
    'a 3,000-character webhook URL',
    (db) => db.prepare('UPDATE webhook_configs SET url = ?').run(`http://x/${'a'.repeat(2991)}`),
    /webhook_configs\.url is 3,000 characters long/,
  ],
  ['a status of its own', (db) => db.prepare("UPDATE invoices SET status = 'HACKED'").run(), /invoices\.status is not one of CREATED, /],
  ['addresses that are not JSON', (db) => db.prepare("UPDATE invoices SET addresses = '[{'").run(), /invoices\.addresses is not valid JSON/],
  ['text for a time', (db) => db.prepare("UPDATE invoices SET created_at = 'soon'").run(), /invoices\.created_at holds something other than a number/],
  [
    'a custom header carrying CR LF',
    (db) => db.prepare('UPDATE webhook_configs SET custom_headers = ?').run(JSON.stringify({ 'X-A': 'a\r\nX-Injected: 1' })),
    /webhook_configs\.custom_headers is not at most 20 headers with valid names and values/,
  ],
];

describe("values svc's API would refuse are refused, nothing changed", () => {
  it.each(BAD_VALUES)('starting from a file with %s: one line naming the file, the column and why', async (_what, craft, why) => {
    const r = await startReceiver();
    receivers.push(r);
    const file = await exportedFile(r, craft);
    const hash = sha(file);
    const error = await startTestEmulator({ snapshot: file }).then(
      (emu) => {
        emulators.push(emu);
        return null;
      },
      (e: Error) => e,
    );
    expect(error?.message).toMatch(why);
    expect(error?.message).toContain(`snapshot ${file} holds a value svc's API would refuse: `);
    expect(error?.message).not.toContain('\n');
    expect(sha(file)).toBe(hash);
  });
});

describe('a file from an earlier svc', () => {
  /** A database as an earlier release left it: migrated up to `upTo`, then edited by `craft`. */
  async function earlier(upTo: string, craft?: (db: Database.Database) => void): Promise<string> {
    const file = path.join(tempDir(), `from-${upTo}.sqlite`);
    const db = new Database(file);
    try {
      await migrate(db, { upTo });
      craft?.(db);
    } finally {
      db.close();
    }
    return file;
  }

  it('is checked against the schema of its own version, then migrated', async () => {
    const emu = await emulator({ snapshot: await earlier('0005-due-index-url') });
    expect(emu.imported).toEqual({ webhookUrls: [], heldDeliveries: 0 });
    expect((await emu.client.test.listInvoices()).status).toBe(200);
  });

  it('with a trigger added is refused before any migration runs on it', async () => {
    const file = await earlier('0003-listeners', (db) => db.exec('CREATE TRIGGER t AFTER UPDATE ON deliveries BEGIN SELECT 1; END'));
    const hash = sha(file);
    await expect(startTestEmulator({ snapshot: file })).rejects.toThrow(/objects svc never creates \(trigger "t"\)/);
    expect(sha(file)).toBe(hash);
  });
});
