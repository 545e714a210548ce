import { sql, type Kysely } from 'kysely';

// Frozen: a migration, once released, never changes. Later schema changes are new migrations.
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
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('merchant_id', 'text', (c) => c.references('merchants.id').onDelete('cascade'))
    .addColumn('hint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('merchants')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
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
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  // One merchant per tenant per partner and environment (409 external_tenant_id_taken).
  await db.schema.createIndex('merchants_tenant').on('merchants').columns(['partner_id', 'environment', 'external_tenant_id']).unique().execute();

  await db.schema
    .createTable('invoices')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('amount_received', 'text', (c) => c.notNull())
    .addColumn('reference_id', 'text')
    .addColumn('lock_network_id', 'integer')
    .addColumn('lock_token', 'text')
    .addColumn('addresses', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addColumn('last_sequence', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invoices_merchant').on('invoices').columns(['merchant_id', 'seq']).execute();
  await db.schema.createIndex('invoices_partner').on('invoices').columns(['partner_id', 'environment', 'seq']).execute();
  // Only open invoices can expire; a partial index keeps the expiry scan small at a million rows.
  await sql`CREATE INDEX invoices_open_expiry ON invoices (expires_at) WHERE status IN ('CREATED', 'PARTIALLY_PAID', 'CONFIRMING')`.execute(db);

  await db.schema
    .createTable('webhook_configs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('custom_headers', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addUniqueConstraint('webhook_configs_partner_env', ['partner_id', 'environment'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('idempotency_expiry').on('idempotency_keys').column('expires_at').execute();
}
