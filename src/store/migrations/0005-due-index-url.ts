import { sql, type Kysely } from 'kysely';

// Frozen. Two ways into the dispatcher's queue: by due time with the URL at hand (the general
// claim skips receivers at their cap without reading rows), and by URL (a freed slot claims only
// for its own receiver, without walking everyone else's backlog).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX deliveries_due`.execute(db);
  await sql`CREATE INDEX deliveries_due ON deliveries (next_attempt_at, url) WHERE status IN ('pending', 'retrying') AND in_flight = 0`.execute(db);
  await sql`CREATE INDEX deliveries_due_url ON deliveries (url, next_attempt_at) WHERE status IN ('pending', 'retrying') AND in_flight = 0`.execute(db);
}
