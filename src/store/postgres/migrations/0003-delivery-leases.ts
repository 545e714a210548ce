import { sql, type Kysely } from 'kysely';

// Frozen. Leases on claimed deliveries (CONTRACT §12, issue 28), as SQLite's 0008: the claim's
// token and the end of its lease (wall-clock ms). A replica that dies loses its claims when their
// leases end; a late result of a lost claim no longer matches its token. The partial index holds
// only claimed rows: the expiry sweep and the per-receiver in-flight count read it.
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by the schema of their day (as SQLite's)
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE deliveries ADD COLUMN lease_token text`.execute(db);
  await sql`ALTER TABLE deliveries ADD COLUMN lease_until bigint`.execute(db);
  await sql`CREATE INDEX deliveries_leased ON deliveries (lease_until) WHERE in_flight = 1`.execute(db);
}
