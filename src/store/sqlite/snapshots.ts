import { readSchema } from '../expected-schema.js';
import { MIGRATION_TABLE, recorded } from '../migrate.js';
import { setMetaNow } from './meta-now.js';
import { openSqlite } from '../sqlite.js';
import type { Store } from './store.js';

/**
 * The SQL of snapshots (CONTRACT §9), with SQLite's own mechanisms: the online backup API writes a
 * consistent copy while the emulator keeps serving; a restore ATTACHes the copy and replaces every
 * table's rows in one transaction on the emulator's own connection, so the prepared statements, the
 * claim on the file and every open stream survive it, and a crash mid-restore leaves the state as it
 * was. What to copy where, and when, is src/server/snapshots/'s.
 */

/** What a restore brought that was held back (an imported file's past, CONTRACT §8). */
export interface HeldBack {
  /** Webhook URLs of its configurations and of the deliveries it left pending (at most 50). */
  webhookUrls: string[];
  /** Deliveries it left pending or retrying: kept, not scheduled. */
  heldDeliveries: number;
}

/** The migrations a database records, in order: a snapshot with the same list needs no migrating. */
export function recordedMigrations(store: Store): string[] {
  return recorded(store.sqlite);
}

/**
 * A consistent copy of the whole database to `file`, with `clockKey` set to `now` in it first (the
 * emulator time a restore puts back), in rollback-journal mode so that opening it later grows no
 * -wal file.
 */
export async function backupTo(store: Store, file: string, clockKey: string, now: number): Promise<void> {
  store.tx(() => setMetaNow(store.sqlite, clockKey, now));
  await store.sqlite.backup(file);
  const db = openSqlite(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** Resolves once no transaction is open: ATTACH cannot run inside one; a group commit never spans a turn, so one turn is enough. */
export async function outsideTransaction(store: Store): Promise<void> {
  while (store.sqlite.inTransaction) await new Promise((resolve) => setImmediate(resolve));
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Every table's rows replaced by the snapshot's, in one transaction (foreign keys checked at commit).
 * The tables are the emulator's own (its `main` schema), quoted here: no name read from the file.
 * `hold`: deliveries the file left pending or retrying are kept but not scheduled (an imported file's
 * past is not sent until the user resends it, CONTRACT §8). The file's schema must have been checked
 * to be exactly ours first (src/server/snapshots/untrusted.ts).
 */
export function replaceAllRows(store: Store, file: string, hold: boolean): HeldBack {
  const db = store.sqlite;
  // The file's tables were checked to be defined exactly as ours (`untrusted.ts`), columns in the same
  // order, so `SELECT *` is safe, and it keeps SQLite's transfer optimization (a column list turns it off).
  const tables = readSchema(db)
    .filter((o) => o.type === 'table' && !o.name.startsWith(MIGRATION_TABLE))
    .map((o) => quote(o.name));
  db.prepare('ATTACH DATABASE ? AS snapshot').run(file);
  try {
    // The snapshot is a consistent copy of a database with the same schema: its foreign keys hold.
    // Checking them again row by row is what made a restore slow; with them off, SQLite empties a
    // table at once and copies another table's pages whole (its "transfer optimization").
    db.pragma('foreign_keys = OFF');
    return store.tx(() => {
      for (const t of tables) db.prepare(`DELETE FROM main.${t}`).run();
      for (const t of tables) db.prepare(`INSERT INTO main.${t} SELECT * FROM snapshot.${t}`).run();
      if (!hold) return { webhookUrls: [], heldDeliveries: 0 };
      const urls = db
        .prepare(
          "SELECT url FROM main.webhook_configs UNION SELECT url FROM main.deliveries WHERE status IN ('pending', 'retrying') AND target = 'webhook' ORDER BY url LIMIT 50",
        )
        .pluck()
        .all()
        .filter((url): url is string => typeof url === 'string');
      const held = db.prepare("UPDATE main.deliveries SET next_attempt_at = NULL, in_flight = 0 WHERE status IN ('pending', 'retrying')").run().changes;
      return { webhookUrls: urls, heldDeliveries: held };
    });
  } finally {
    db.pragma('foreign_keys = ON');
    db.prepare('DETACH DATABASE snapshot').run();
  }
}
