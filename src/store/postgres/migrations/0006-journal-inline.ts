import { sql, type Kysely } from 'kysely';

// Frozen. The request journal's rows (0005) stay whole in their page up to 8,160 bytes instead of
// being compressed from 2,032 on: an entry with an invoice in its answer is ~2.5 KB, and pglz
// compressing every entry of every request cost the server about a third of the journal's INSERT
// (issue 27). Larger entries (bodies up to 16 KiB each) are still compressed and stored aside.
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by the schema of their day (as SQLite's)
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE request_journal SET (toast_tuple_target = 8160)`.execute(db);
}
