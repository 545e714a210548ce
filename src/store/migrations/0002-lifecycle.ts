import { sql, type Kysely } from 'kysely';

// Frozen. Payments, the event outbox, deliveries and their attempts (CONTRACT §3–5).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('invoices')
    .addColumn('pending_payments', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Replace the expiry index: an invoice with a payment still confirming does not expire.
  await sql`DROP INDEX invoices_open_expiry`.execute(db);
  await sql`CREATE INDEX invoices_open_expiry ON invoices (expires_at) WHERE status IN ('CREATED', 'PARTIALLY_PAID') AND pending_payments = 0`.execute(db);

  await db.schema
    .createTable('payments')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('network_id', 'integer', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('confirmed', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('confirmed_at', 'integer')
    .execute();
  await db.schema.createIndex('payments_invoice').on('payments').columns(['invoice_id', 'seq']).execute();

  await db.schema
    .createTable('events')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_partner').on('events').columns(['partner_id', 'environment', 'seq']).execute();

  await db.schema
    .createTable('deliveries')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    // 'webhook' (the partner's configuration) or 'listener' (svc webhook listen).
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull())
    // Scheduled attempts only: manual resends do not move the retry schedule (CONTRACT §5).
    .addColumn('scheduled_attempts', 'integer', (c) => c.notNull())
    .addColumn('in_flight', 'integer', (c) => c.notNull())
    .addColumn('last_attempt_at', 'integer')
    .addColumn('next_attempt_at', 'integer')
    .addColumn('last_response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deliveries_partner').on('deliveries').columns(['partner_id', 'environment', 'seq']).execute();
  // The dispatcher's queue: what is due and not already being attempted.
  await sql`CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying') AND in_flight = 0`.execute(db);

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('delivery_attempts_delivery').on('delivery_attempts').columns(['delivery_id', 'number']).execute();
}
