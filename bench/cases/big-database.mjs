import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { load, start } from '../lib/processes.mjs';
import { createLoad, mb } from './http.mjs';

/**
 * #4: #1 against a database already holding 1,000,000 invoices (each with its invoice.created
 * event), compared with an empty one; and the emulator's RSS while serving it.
 */
export async function bigDatabase(report, { invoices = 1_000_000 } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  try {
    const emptyFile = path.join(dir, 'empty.sqlite');
    const bigFile = path.join(dir, 'big.sqlite');
    // Same identity in both files: create the big one by starting, then bulk-filling, the emulator's schema.
    const seed = await start('emulator-process.mjs', [JSON.stringify({ db: bigFile })]);
    const template = await (
      await fetch(`${seed.url}/v1/partner/invoices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${seed.keys.test.partnerKey}`, 'content-type': 'application/json', 'idempotency-key': 'template' },
        body: JSON.stringify({ merchantId: seed.keys.test.merchantId, amount: '25.00' }),
      })
    ).json();
    await seed.stop();
    const started = Date.now();
    fill(bigFile, template.id, invoices);
    const fillSeconds = (Date.now() - started) / 1000;
    // The fill leaves gigabytes of dirty pages; let the kernel write them now, not during the runs.
    const fd = fs.openSync(bigFile, 'r+');
    fs.fsyncSync(fd);
    fs.closeSync(fd);

    // Both emulators up at once, each warmed, then measured in turns (empty, big, empty, big) so
    // that the machine's drift during the case weighs on both sides alike.
    const empty = await start('emulator-process.mjs', [JSON.stringify({ db: emptyFile })]);
    const big = await start('emulator-process.mjs', [JSON.stringify({ db: bigFile })]);
    let small = { total: 0 };
    let loaded = { total: 0 };
    let rss = 0;
    try {
      await load(createLoad(empty, { duration: 2 }));
      await load(createLoad(big, { duration: 2 }));
      for (let round = 0; round < 2; round++) {
        small = sum(small, await load(createLoad(empty)));
        loaded = sum(loaded, await load(createLoad(big)));
      }
      rss = (await big.ask('rss')).rss;
    } finally {
      await empty.stop();
      await big.stop();
    }
    report({
      id: 4,
      what: `#1 with ${invoices.toLocaleString('en')} invoices stored vs an empty database`,
      value: loaded.total / small.total,
      target: 0.85,
      better: 'higher',
      detail: `${Math.round(loaded.total / 20)} vs ${Math.round(small.total / 20)} req/s (file databases, two 10 s turns each; filled in ${fillSeconds.toFixed(0)} s)`,
    });
    report({
      id: '4b',
      what: 'emulator RSS serving #4',
      value: mb(rss),
      target: 200,
      better: 'lower',
      unit: 'MB',
      detail: `${(fs.statSync(bigFile).size / 1e9).toFixed(2)} GB database file`,
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function sum(a, b) {
  return { total: a.total + b.total };
}

/** Copies the template invoice (and its event) under fresh ids, in large transactions. */
function fill(file, templateId, count) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const inv = db.prepare('SELECT * FROM invoices WHERE id = ?').get(templateId);
  const ev = db.prepare('SELECT * FROM events WHERE invoice_id = ?').get(templateId);
  const insertInvoice = db.prepare(
    `INSERT INTO invoices (id, merchant_id, partner_id, environment, status, amount, amount_received, reference_id, lock_network_id, lock_token, addresses, expires_at, created_at, updated_at, last_sequence, pending_payments)
     VALUES (@id, @merchant_id, @partner_id, @environment, @status, @amount, @amount_received, @reference_id, @lock_network_id, @lock_token, @addresses, @expires_at, @created_at, @updated_at, @last_sequence, 0)`,
  );
  const insertEvent = db.prepare(
    `INSERT INTO events (id, invoice_id, sequence, type, environment, partner_id, merchant_id, payload, created_at)
     VALUES (@id, @invoice_id, @sequence, @type, @environment, @partner_id, @merchant_id, @payload, @created_at)`,
  );
  const batch = db.transaction((n) => {
    for (let i = 0; i < n; i++) {
      const id = randomUUID();
      // Old and paid: the fill must not become a million expiries at start.
      insertInvoice.run({ ...inv, id, status: 'PAID', amount_received: inv.amount });
      insertEvent.run({ ...ev, id: `${id}-1`, invoice_id: id, payload: ev.payload.replaceAll(templateId, id) });
    }
  });
  for (let done = 0; done < count; done += 50_000) batch(Math.min(50_000, count - done));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
