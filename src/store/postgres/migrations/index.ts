import type { Migration } from 'kysely';

/**
 * PostgreSQL's migrations, in order, registered statically like SQLite's (../../migrations/index.ts).
 * A separate list: PostgreSQL starts from SQLite's schema as of 0007 in one migration. A later schema
 * change adds one migration to each list, under the same name. 0002-snapshots is PostgreSQL's alone
 * (named snapshots in the database; SQLite keeps files), and holds no table a snapshot copies.
 * 0003-delivery-leases is SQLite's 0008 (the numbers differ; the columns and index are the same).
 * 0004-listener-streams is PostgreSQL's alone (listen across replicas; no table a snapshot copies).
 * 0005-request-journal is PostgreSQL's alone (SQLite keeps the journal in memory), and so is
 * 0006-journal-inline (how its rows are stored), and 0007-notify-key (the key of the change channel).
 * 0008-local-chains is SQLite's 0009 module with 64-bit integers (the local chains' tables; CONTRACT §14).
 * 0010-list-order is SQLite's own module, run here too (the lists' indexes; the same DDL on both).
 */
export const postgresMigrations: Record<string, () => Promise<Migration>> = {
  '0001-initial': () => import('./0001-initial.js'),
  '0002-snapshots': () => import('./0002-snapshots.js'),
  '0003-delivery-leases': () => import('./0003-delivery-leases.js'),
  '0004-listener-streams': () => import('./0004-listener-streams.js'),
  '0005-request-journal': () => import('./0005-request-journal.js'),
  '0006-journal-inline': () => import('./0006-journal-inline.js'),
  '0007-notify-key': () => import('./0007-notify-key.js'),
  '0008-local-chains': () => import('../../migrations/0009-local-chains.js').then(({ localChainTables }) => ({ up: (db) => localChainTables(db, 'bigint') })),
  '0010-list-order': () => import('../../migrations/0010-list-order.js'),
};
