import { sql, type Kysely } from 'kysely';

// Frozen. The request journal (CONTRACT §9) on PostgreSQL, shared by every replica (§12, issue 28):
// SQLite keeps it in memory (one process) and has no twin of this table. Rows hold the entry as the
// journal presents it, keys and secrets already masked (server/journal/shared-journal.ts). `seq` is
// the write order every replica agrees on; `replica` names the writer, so that a replica told
// "my rows seq a..b" reads exactly those. The filters of `GET /__emulator/requests` read the columns;
// `id` is the Request-Id (`GET /__emulator/requests/{requestId}`, `startingAfter`). Not a data table:
// a reset keeps it (as SQLite's reset keeps the ring) and snapshots do not hold it.
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by the schema of their day (as SQLite's)
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE request_journal (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    replica text NOT NULL,
    id text NOT NULL,
    method text NOT NULL,
    path text NOT NULL,
    status integer,
    from_dashboard boolean NOT NULL,
    entry json NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX request_journal_id ON request_journal (id)`.execute(db);
}
