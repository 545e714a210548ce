import { sql, type Kysely } from 'kysely';

// Frozen. `svc webhook listen` across replicas (CONTRACT §12, issue 28), PostgreSQL's alone (SQLite
// has one process, which holds every stream in memory); neither table is in a snapshot or a reset.
// listener_streams: which replica holds a live stream of which listener, with a lease (wall-clock
// ms) its holder renews: a dead replica's rows end with their lease. listener_results: an attempt a
// replica waits for, so that the listener's result, posted through a balancer to any replica,
// reaches the one waiting (`result` is written there, then NOTIFY wakes the waiter).
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by the schema of their day (as SQLite's)
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE listener_streams (
    replica_id text NOT NULL,
    partner_id text NOT NULL,
    environment text NOT NULL,
    lease_until bigint NOT NULL,
    PRIMARY KEY (replica_id, partner_id, environment)
  )`.execute(db);
  await sql`CREATE INDEX listener_streams_listener ON listener_streams (partner_id, environment)`.execute(db);
  await sql`CREATE TABLE listener_results (
    request_id text PRIMARY KEY,
    partner_id text NOT NULL,
    environment text NOT NULL,
    replica_id text NOT NULL,
    result text,
    created_at bigint NOT NULL
  )`.execute(db);
}
