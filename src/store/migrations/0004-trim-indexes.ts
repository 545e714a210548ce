import { sql, type Kysely } from 'kysely';

// Frozen. Nothing reads events by partner (deliveries carry what listings need), and every index
// is paid on each invoice creation: drop it.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS events_partner`.execute(db);
}
