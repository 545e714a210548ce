import type { Kysely } from 'kysely';

// Frozen. Named snapshots (CONTRACT §9) live in the database on PostgreSQL, so that every replica
// lists, restores and deletes the same ones (§12: any replica answers with the same state); on
// SQLite they stay files beside the database, and this table has no SQLite twin. `data` is the
// portable snapshot file's bytes (a SQLite database, as `svc snapshot export` writes it).
// `taken_at` is the emulator time it was taken at (what listings show and sort by, as a file's
// mtime on SQLite); `created_at` the wall time the row was written.
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by the schema of their day (as SQLite's)
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('snapshots')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('taken_at', 'bigint', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('data', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
