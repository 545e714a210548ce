import { sql, type Kysely } from 'kysely';

// Frozen. Leases on claimed deliveries (CONTRACT §12, issue 28): who holds a claim (a token per
// claim) and until when (wall-clock ms). Several replicas share one PostgreSQL database; a replica
// that dies leaves its claims in flight, and they are released once their lease ends. SQLite has
// one owner and still releases everything at start, but keeps the same schema as PostgreSQL
// (snapshots move between them). The partial index finds the few claimed rows: expired leases,
// and the in-flight count per receiver.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE deliveries ADD COLUMN lease_token TEXT`.execute(db);
  await sql`ALTER TABLE deliveries ADD COLUMN lease_until INTEGER`.execute(db);
  await sql`CREATE INDEX deliveries_leased ON deliveries (lease_until) WHERE in_flight = 1`.execute(db);
}
