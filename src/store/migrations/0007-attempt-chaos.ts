import { sql, type Kysely } from 'kysely';

// Frozen. Webhook chaos (CONTRACT §9): which kinds of chaos an attempt was sent with, if any.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE delivery_attempts ADD COLUMN chaos TEXT`.execute(db);
}
