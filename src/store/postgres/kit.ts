import type { StoreKit } from '../kit.js';
import { sharedClock } from './clock-store.js';
import { sandboxVersion } from './notify.js';
import { StoredValue } from '../shared-value.js';
import { attemptsOf } from './attempt-feed.js';
import { postgresJournalTable } from './journal.js';
import { PostgresLeases } from './leases.js';
import { SharedListenerPresence } from './listener-presence.js';
import { openPostgresDb, postgresQuery } from './open.js';
import { postgresSnapshotEngine } from './snapshot-engine.js';

export interface PostgresKitOptions {
  url: string;
  /** Connections lost and found again (the pool's idle ones, the change channel): reported, never thrown. */
  onWarning?: (message: string) => void;
}

/**
 * PostgreSQL's kit (../kit.ts): several replicas on one database are one sandbox (CONTRACT §12).
 * Shared values are `meta` rows, the journal a table, listener streams and claims carry leases, and
 * what must wake another replica goes by LISTEN/NOTIFY (notify.ts).
 */
export async function openPostgresKit(options: PostgresKitOptions): Promise<StoreKit> {
  const warn = options.onWarning;
  const db = await openPostgresDb({
    url: options.url,
    ...(warn
      ? {
          // An idle connection the server dropped (a restart): the pool opens a new one for the next query.
          onIdleError: (error: Error) => warn(`the database connection was lost (${error.message}); reconnecting`),
          onChannelWarning: warn,
        }
      : {}),
  });
  return {
    db,
    clock: sharedClock(db),
    // Read before every request and claim: the tenants' rows cached at another version are forgotten.
    sandboxVersion: async () => {
      const version = await sandboxVersion(db.handle);
      db.cache.seen(version);
      return version;
    },
    sharedValue: (value) => new StoredValue(db, value),
    feeds: { journal: postgresJournalTable(db.handle, db.sender), attemptsOf: (ids) => attemptsOf(db.handle, ids) },
    presence: (leaseMs) => new SharedListenerPresence(db, leaseMs),
    leases: (leaseMs, hooks) => new PostgresLeases(db, leaseMs, hooks),
    snapshots: (onError) => postgresSnapshotEngine(db, onError),
    // Other replicas hold live claims (§12): only those whose lease ended go (a lease is measured
    // on the database's clock, never the emulator clock).
    recoverClaims: async (leaseMs) => {
      await db.deliveries.releaseExpiredLeases(leaseMs);
    },
    listening: () => {},
    explain: (error) => error,
    // A test's raw statement may write what the cache holds: forgotten after each.
    query: (text) => postgresQuery(db, text).finally(() => db.cache.forget()),
    sqlite: null,
    close: () => db.close(),
  };
}
