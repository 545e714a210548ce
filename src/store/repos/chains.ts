import type { Insertable, Selectable } from 'kysely';
import { param, prepared } from '../query.js';
import type { ChainTransfersTable, LocalChainsTable } from '../schema.js';
import type { Store } from '../store.js';

/*
 * Local chains (CONTRACT §14, migration 0009), on SQLite only: `svc dev --chains` refuses PostgreSQL,
 * since one process owns the nodes. So this module is not one of the asynchronous store's
 * repositories (../engine.ts): the server calls it on SQLite's `Store`, inside a transaction of the
 * store (`db.transaction`) when it writes with other repositories, which is the same connection and
 * the same savepoint there (../sqlite-db.ts).
 */

export type LocalChainRow = Selectable<LocalChainsTable>;
export type ChainTransferRow = Selectable<ChainTransfersTable>;

/** The tables of this module: SQLite's alone (the PostgreSQL schema has no local chains). */
export const LOCAL_CHAIN_TABLES = ['local_chains', 'chain_transfers'] as const;

const byNetwork = prepared((qb) => qb.selectFrom('local_chains').selectAll().where('network_id', '=', param('network_id')));

/** What is stored of one local chain, if anything. */
export function findLocalChain(store: Store, networkId: number): LocalChainRow | undefined {
  return byNetwork.get(store, { network_id: networkId });
}

const putLastBlock = prepared((qb) =>
  qb
    .insertInto('local_chains')
    .values({ network_id: param('network_id'), last_block: param('last_block'), state: null, updated_at: param('now') })
    .onConflict((oc) => oc.column('network_id').doUpdateSet({ last_block: param('last_block'), updated_at: param('now') })),
);

/** The last block whose transfers were turned into payments. */
export function saveLastBlock(store: Store, networkId: number, lastBlock: number, now: number): void {
  putLastBlock.run(store, { network_id: networkId, last_block: lastBlock, now });
}

const putState = prepared((qb) =>
  qb
    .insertInto('local_chains')
    .values({ network_id: param('network_id'), last_block: param('last_block'), state: param('state'), updated_at: param('now') })
    .onConflict((oc) => oc.column('network_id').doUpdateSet({ last_block: param('last_block'), state: param('state'), updated_at: param('now') })),
);

/** The node's dumped state, with the last block processed at the time of the dump. */
export function saveChainState(store: Store, networkId: number, state: string, lastBlock: number, now: number): void {
  putState.run(store, { network_id: networkId, last_block: lastBlock, state, now });
}

const deleteChains = prepared((qb) => qb.deleteFrom('local_chains'));
const deleteTransfers = prepared((qb) => qb.deleteFrom('chain_transfers'));

/** Forgets every chain and transfer: a reset (the chains start again from their genesis). */
export function clearLocalChains(store: Store): void {
  deleteTransfers.run(store);
  deleteChains.run(store);
}

const byLog = prepared((qb) =>
  qb
    .selectFrom('chain_transfers')
    .selectAll()
    .where('network_id', '=', param('network_id'))
    .where('tx_hash', '=', param('tx_hash'))
    .where('log_index', '=', param('log_index')),
);

/** The transfer of this log, if it was seen already. */
export function findTransfer(store: Store, networkId: number, txHash: string, logIndex: number): ChainTransferRow | undefined {
  return byLog.get(store, { network_id: networkId, tx_hash: txHash, log_index: logIndex });
}

const insert = prepared((qb) =>
  qb.insertInto('chain_transfers').values({
    id: param('id'),
    network_id: param('network_id'),
    tx_hash: param('tx_hash'),
    log_index: param('log_index'),
    block_number: param('block_number'),
    invoice_id: param('invoice_id'),
    contract_address: param('contract_address'),
    token: param('token'),
    sender: param('sender'),
    amount: param('amount'),
    payment_id: param('payment_id'),
    reason: param('reason'),
    created_at: param('created_at'),
  }),
);

export function insertTransfer(store: Store, row: Insertable<ChainTransfersTable>): void {
  insert.run(store, { ...row });
}

const uncreditedOf = prepared((qb) =>
  qb
    .selectFrom('chain_transfers')
    .selectAll()
    .where('invoice_id', '=', param('invoice_id'))
    .where('payment_id', 'is', null)
    .orderBy('created_at')
    .orderBy('id'),
);

/** The transfers to an invoice that credited nothing, oldest first. */
export function uncreditedTransfersOf(store: Store, invoiceId: string): ChainTransferRow[] {
  return uncreditedOf.all(store, { invoice_id: invoiceId });
}

const dueOf = prepared((qb) =>
  qb
    .selectFrom('chain_transfers as t')
    .innerJoin('payments as p', 'p.id', 't.payment_id')
    .select(['t.invoice_id', 't.payment_id', 't.tx_hash', 't.block_number'])
    .where('t.network_id', '=', param('network_id'))
    .where('p.confirmed', '=', 0)
    .where('t.block_number', '<=', param('block'))
    .orderBy('t.block_number')
    .orderBy('t.log_index'),
);

/** Payments of transfers mined at or before `block` that are not confirmed yet, oldest first. */
export function unconfirmedUpTo(
  store: Store,
  networkId: number,
  block: number,
): { invoice_id: string; payment_id: string | null; tx_hash: string; block_number: number }[] {
  return dueOf.all(store, { network_id: networkId, block });
}

const lastUnconfirmed = prepared((qb) =>
  qb
    .selectFrom('chain_transfers as t')
    .innerJoin('payments as p', 'p.id', 't.payment_id')
    .select((eb) => eb.fn.max('t.block_number').as('block'))
    .where('t.network_id', '=', param('network_id'))
    .where('p.confirmed', '=', 0),
);

/** The block of the latest transfer whose payment is not confirmed yet, or null. */
export function lastUnconfirmedBlock(store: Store, networkId: number): number | null {
  return lastUnconfirmed.get(store, { network_id: networkId })?.block ?? null;
}

const invoicesAfter = prepared((qb) =>
  qb.selectFrom('invoices').select(['seq', 'id']).where('environment', '=', 'test').where('seq', '>', param('seq')).orderBy('seq').limit(param('limit')),
);

/** Test invoices created after `seq`, in order: the watcher learns their deposit addresses. */
export function testInvoicesAfter(store: Store, seq: number, limit: number): { seq: number; id: string }[] {
  return invoicesAfter.all(store, { seq, limit });
}
