import { sql, type Kysely } from 'kysely';

// Frozen. Local chains (CONTRACT §14, issue 42), as SQLite's 0009: `local_chains` (per network, the
// watcher's position and the node's dumped state) and `chain_transfers` (every Transfer seen to a
// deposit address, credited or not, once per log). `svc dev --chains` runs on SQLite only (one
// process owns the nodes), but the tables exist here too: a reset empties them on either engine, and a
// snapshot exported from a laptop with chains restores into a shared sandbox table for table.
// Types as in 0001-initial: bigint for numbers SQLite stores as integers.
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by the schema of their day (as SQLite's)
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('local_chains')
    .addColumn('network_id', 'bigint', (c) => c.primaryKey())
    .addColumn('last_block', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('chain_transfers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network_id', 'bigint', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('log_index', 'bigint', (c) => c.notNull())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('contract_address', 'text', (c) => c.notNull())
    .addColumn('token', 'text')
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.references('payments.id').onDelete('cascade'))
    .addColumn('reason', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('chain_transfers_log', ['network_id', 'tx_hash', 'log_index'])
    .execute();
  await db.schema.createIndex('chain_transfers_invoice').on('chain_transfers').columns(['invoice_id', 'created_at']).execute();
  await sql`CREATE INDEX chain_transfers_block ON chain_transfers (network_id, block_number) WHERE payment_id IS NOT NULL`.execute(db);
}
