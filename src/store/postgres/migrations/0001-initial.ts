import { sql, type Kysely } from 'kysely';

// Frozen. The whole schema of SQLite's migrations 0001–0007, table for table and column for column,
// so that a snapshot exports the same rows from either engine (docs/decisions.md, "PostgreSQL column
// types"). There were never PostgreSQL databases of the earlier versions, hence one migration.
//
// Types follow what SQLite stores, not what would be idiomatic here: times are bigint milliseconds
// of emulator time (not timestamptz), money is text exactly as sent (not numeric: "10.00" stays
// "10.00"), flags are integer 0/1, lists and envelopes are text (not jsonb, which reorders keys: a
// payload must stay the bytes that were signed). network_id is bigint: Tron Shasta's is 2494104990.
// Insertion-order `seq` columns are identity columns (by default, so that a restore can write them).
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by the schema of their day (as SQLite's)
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('partners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  // Before api_keys: PostgreSQL checks a reference when it is declared, SQLite only when it is used.
  await db.schema
    .createTable('merchants')
    .addColumn('seq', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('external_tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('integration_status', 'text', (c) => c.notNull())
    .addColumn('dashboard_access', 'integer', (c) => c.notNull())
    .addColumn('auto_payout_enabled', 'integer', (c) => c.notNull())
    .addColumn('network_ids', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // One merchant per tenant per partner and environment (409 external_tenant_id_taken).
  await db.schema.createIndex('merchants_tenant').on('merchants').columns(['partner_id', 'environment', 'external_tenant_id']).unique().execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('merchant_id', 'text', (c) => c.references('merchants.id').onDelete('cascade'))
    .addColumn('hint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('invoices')
    .addColumn('seq', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('amount_received', 'text', (c) => c.notNull())
    .addColumn('reference_id', 'text')
    .addColumn('lock_network_id', 'bigint')
    .addColumn('lock_token', 'text')
    .addColumn('addresses', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_sequence', 'integer', (c) => c.notNull())
    .addColumn('pending_payments', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('invoices_merchant').on('invoices').columns(['merchant_id', 'seq']).execute();
  await db.schema.createIndex('invoices_partner').on('invoices').columns(['partner_id', 'environment', 'seq']).execute();
  // Only open invoices without a payment confirming can expire: the expiry scan stays small.
  await sql`CREATE INDEX invoices_open_expiry ON invoices (expires_at) WHERE status IN ('CREATED', 'PARTIALLY_PAID') AND pending_payments = 0`.execute(db);

  await db.schema
    .createTable('webhook_configs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('custom_headers', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('webhook_configs_partner_env', ['partner_id', 'environment'])
    .execute();

  // Idempotency by constraint: a race of creates with one key inserts one row (the scope is the key).
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('idempotency_expiry').on('idempotency_keys').column('expires_at').execute();

  await db.schema
    .createTable('payments')
    .addColumn('seq', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('network_id', 'bigint', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('confirmed', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('confirmed_at', 'bigint')
    .execute();
  await db.schema.createIndex('payments_invoice').on('payments').columns(['invoice_id', 'seq']).execute();

  // The outbox (no index by partner: SQLite's 0004 dropped it, nothing reads events that way).
  await db.schema
    .createTable('events')
    .addColumn('seq', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('deliveries')
    .addColumn('seq', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull())
    .addColumn('scheduled_attempts', 'integer', (c) => c.notNull())
    .addColumn('in_flight', 'integer', (c) => c.notNull())
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('last_response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deliveries_partner').on('deliveries').columns(['partner_id', 'environment', 'seq']).execute();
  // The dispatcher's queue, by due time and by receiver (SQLite's 0005).
  await sql`CREATE INDEX deliveries_due ON deliveries (next_attempt_at, url) WHERE status IN ('pending', 'retrying') AND in_flight = 0`.execute(db);
  await sql`CREATE INDEX deliveries_due_url ON deliveries (url, next_attempt_at) WHERE status IN ('pending', 'retrying') AND in_flight = 0`.execute(db);

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addColumn('chaos', 'text')
    .execute();
  await db.schema.createIndex('delivery_attempts_delivery').on('delivery_attempts').columns(['delivery_id', 'number']).execute();

  await db.schema
    .createTable('listeners')
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('events', 'text')
    .addColumn('forward_to', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('listeners_pk', ['partner_id', 'environment'])
    .execute();
}
