import { sql, type Kysely } from 'kysely';

// Frozen. Local chains (CONTRACT §14, issue 42), SQLite only: `svc dev --chains` refuses PostgreSQL,
// since one process owns the nodes. `local_chains`: per network, the last block the watcher has
// turned into payments (so a restart neither misses nor repeats a transfer) and the node's state as
// anvil dumps it (a restart and a snapshot bring the chain back). `chain_transfers`: every ERC-20
// Transfer seen to an invoice's deposit address, credited (its payment) or not (why), once per log:
// the unique key is what credits a transaction once whatever restarts happen.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('local_chains')
    .addColumn('network_id', 'integer', (c) => c.primaryKey())
    .addColumn('last_block', 'integer', (c) => c.notNull())
    // anvil_dumpState's answer (hex of gzipped JSON), or null until the first save.
    .addColumn('state', 'text')
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('chain_transfers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network_id', 'integer', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('log_index', 'integer', (c) => c.notNull())
    .addColumn('block_number', 'integer', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('contract_address', 'text', (c) => c.notNull())
    // The token's symbol when the contract is one svc accepts on this network; null for another token.
    .addColumn('token', 'text')
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    // The payment it became; null when it credits nothing (then `reason` says why).
    .addColumn('payment_id', 'text', (c) => c.references('payments.id').onDelete('cascade'))
    .addColumn('reason', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addUniqueConstraint('chain_transfers_log', ['network_id', 'tx_hash', 'log_index'])
    .execute();
  await db.schema.createIndex('chain_transfers_invoice').on('chain_transfers').columns(['invoice_id', 'created_at']).execute();
  // Credited transfers by block: the ones whose payment waits for confirmations.
  await sql`CREATE INDEX chain_transfers_block ON chain_transfers (network_id, block_number) WHERE payment_id IS NOT NULL`.execute(db);
}
