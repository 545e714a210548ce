import { sql, type Kysely } from 'kysely';

// Frozen. The key replicas sign their change notifications with (notify.ts, CONTRACT §12 "trust
// only its own"): any role that may connect can LISTEN and NOTIFY on svc's channel without a grant
// on svc's tables, but only svc's role reads this one. PostgreSQL's alone (SQLite has one process),
// and not a table a snapshot copies: a key leaves the database with no file. One row.
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by the schema of their day (as SQLite's)
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE notify_key (one boolean PRIMARY KEY DEFAULT true CHECK (one), key text NOT NULL)`.execute(db);
}
