import { sql, type Kysely } from 'kysely';

// Frozen. Marks the file as an svc database (`PRAGMA application_id`, in the header), so that a
// start refuses someone else's SQLite file instead of adding its tables to it. 0x73766365 is "svce".
export async function up(db: Kysely<any>): Promise<void> {
  await sql`PRAGMA application_id = 1937138533`.execute(db);
}
