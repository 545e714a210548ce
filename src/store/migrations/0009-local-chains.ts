import { sql, type Kysely } from 'kysely';

// Frozen. Local chains (CONTRACT §14, issue 42). `svc dev --chains` runs on SQLite only (one process
// owns the nodes), but PostgreSQL has the tables too, from this same module (its 0008-local-chains,
// with 64-bit integers as in its 0001): a reset empties them on either engine, and a snapshot from a
// laptop with chains restores into a shared sandbox table for table. `local_chains`: per network,
// the last block the watcher has turned into payments (so a restart neither misses nor repeats a
// transfer) and the node's state as anvil dumps it (a restart and a snapshot bring the chain back).
// `chain_transfers`: every ERC-20 Transfer seen to an invoice's deposit address, credited (its
// payment) or not (why), once per log: the unique key is what credits a transaction once whatever
// restarts happen.
export function up(db: Kysely<any>): Promise<void> {
  return localChainTables(db, 'integer');
}

/** The DDL on either engine; `int` is SQLite's `integer` or PostgreSQL's `bigint` (times in ms, block numbers). */
export async function localChainTables(db: Kysely<any>, int: 'integer' | 'bigint'): Promise<void> {
  await db.schema
    .createTable('local_chains')
    .addColumn('network_id', int, (c) => c.primaryKey())
    .addColumn('last_block', int, (c) => c.notNull())
    // anvil_dumpState's answer (hex of gzipped JSON), or null until the first save.
    .addColumn('state', 'text')
    .addColumn('updated_at', int, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('chain_transfers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network_id', int, (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('log_index', int, (c) => c.notNull())
    .addColumn('block_number', int, (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('contract_address', 'text', (c) => c.notNull())
    // The token's symbol when the contract is one svc accepts on this network; null for another token.
    .addColumn('token', 'text')
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    // The payment it became; null when it credits nothing (then `reason` says why).
    .addColumn('payment_id', 'text', (c) => c.references('payments.id').onDelete('cascade'))
    .addColumn('reason', 'text')
    .addColumn('created_at', int, (c) => c.notNull())
    .addUniqueConstraint('chain_transfers_log', ['network_id', 'tx_hash', 'log_index'])
    .execute();
  await db.schema.createIndex('chain_transfers_invoice').on('chain_transfers').columns(['invoice_id', 'created_at']).execute();
  // Credited transfers by block: the ones whose payment waits for confirmations.
  await sql`CREATE INDEX chain_transfers_block ON chain_transfers (network_id, block_number) WHERE payment_id IS NOT NULL`.execute(db);
}
