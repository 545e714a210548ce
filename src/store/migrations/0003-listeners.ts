import type { Kysely } from 'kysely';

// Frozen. `svc webhook listen` targets: one per partner and environment, with a stable secret.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('listeners')
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    // JSON array of event types to forward, or null for all.
    .addColumn('events', 'text')
    .addColumn('forward_to', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('listeners_pk', ['partner_id', 'environment'])
    .execute();
}
