import { DatabaseFileError, sqliteCode } from '../errors.js';
import { describeSqliteFailure } from '../file-check.js';
import { processClock } from '../clock-store.js';
import type { StoreKit } from '../kit.js';
import { noLeases } from '../leases.js';
import { MemoryValue } from '../shared-value.js';
import { sqliteDb } from './db.js';
import { sqliteQuery } from './raw-query.js';
import { sqliteSnapshotEngine } from './snapshot-engine.js';
import { openStore } from './store.js';

export interface SqliteKitOptions {
  /** A file path, or ':memory:'. */
  file: string;
  /** Claim the file for this process's lifetime, in these words (CONTRACT §8); unclaimed without it. */
  claimAs?: string;
}

/**
 * SQLite's kit (../kit.ts): one emulator per database (CONTRACT §8), so what CONTRACT §12 shares
 * between replicas is this process's alone: shared values in memory, no feeds from other processes,
 * no listener presence elsewhere, no claim leases, and every claim in flight at start was its
 * predecessor's.
 */
export async function openSqliteKit(options: SqliteKitOptions): Promise<StoreKit> {
  const store = await openStore({ file: options.file, ...(options.claimAs !== undefined ? { claimAs: options.claimAs } : {}) });
  const db = sqliteDb(store);
  return {
    db,
    clock: processClock(db),
    sandboxVersion: null,
    sharedValue: (value) => new MemoryValue(value),
    feeds: null,
    presence: () => null,
    leases: () => noLeases,
    snapshots: async () => sqliteSnapshotEngine(store),
    recoverClaims: async () => {
      await db.deliveries.releaseInFlight();
    },
    listening: (url) => store.claim?.setUrl(url),
    // A database error while starting (locked by another program past the wait, a full disk) is the
    // user's to fix: one line naming the file, not a stack trace.
    explain: (error) => (sqliteCode(error) && store.file !== ':memory:' ? new DatabaseFileError(store.file, describeSqliteFailure(error)) : error),
    query: async (text) => sqliteQuery(store, text),
    sqlite: store,
    close: async () => store.close(),
  };
}
