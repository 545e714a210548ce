import type { Insertable, Selectable } from 'kysely';
import type { Runner } from '../engine.js';
import { param, prepared } from '../query.js';
import type { ChainTransfersTable, LocalChainsTable } from '../schema.js';

/*
 * Local chains (CONTRACT §14): per network, the watcher's position and the node's saved state; every
 * Transfer seen to a deposit address, credited or not. A repository like the others, on either
 * engine: `svc dev --chains` runs on SQLite only (one process owns the nodes), but the tables exist on
 * both, so that a reset empties them and a snapshot carries them whichever engine wrote it.
 */

export type LocalChainRow = Selectable<LocalChainsTable>;
export type ChainTransferRow = Selectable<ChainTransfersTable>;

const byNetwork = prepared((qb) => qb.selectFrom('local_chains').selectAll().where('network_id', '=', param('network_id')));

/** What is stored of one local chain, if anything. */
export async function findLocalChain(db: Runner, networkId: number): Promise<LocalChainRow | undefined> {
  return db.get(byNetwork, { network_id: networkId });
}

const putLastBlock = prepared((qb) =>
  qb
    .insertInto('local_chains')
    .values({ network_id: param('network_id'), last_block: param('last_block'), state: null, updated_at: param('now') })
    .onConflict((oc) => oc.column('network_id').doUpdateSet({ last_block: param('last_block'), updated_at: param('now') })),
);

/** The last block whose transfers were turned into payments. */
export async function saveLastBlock(db: Runner, networkId: number, lastBlock: number, now: number): Promise<void> {
  await db.run(putLastBlock, { network_id: networkId, last_block: lastBlock, now });
}

const putState = prepared((qb) =>
  qb
    .insertInto('local_chains')
    .values({ network_id: param('network_id'), last_block: param('last_block'), state: param('state'), updated_at: param('now') })
    .onConflict((oc) => oc.column('network_id').doUpdateSet({ last_block: param('last_block'), state: param('state'), updated_at: param('now') })),
);

/** The node's dumped state, with the last block processed at the time of the dump. */
export async function saveChainState(db: Runner, networkId: number, state: string, lastBlock: number, now: number): Promise<void> {
  await db.run(putState, { network_id: networkId, last_block: lastBlock, state, now });
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
export async function findTransfer(db: Runner, networkId: number, txHash: string, logIndex: number): Promise<ChainTransferRow | undefined> {
  return db.get(byLog, { network_id: networkId, tx_hash: txHash, log_index: logIndex });
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

export async function insertTransfer(db: Runner, row: Insertable<ChainTransfersTable>): Promise<void> {
  await db.run(insert, { ...row });
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
export async function uncreditedTransfersOf(db: Runner, invoiceId: string): Promise<ChainTransferRow[]> {
  return db.all(uncreditedOf, { invoice_id: invoiceId });
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
export async function unconfirmedUpTo(
  db: Runner,
  networkId: number,
  block: number,
): Promise<{ invoice_id: string; payment_id: string | null; tx_hash: string; block_number: number }[]> {
  return db.all(dueOf, { network_id: networkId, block });
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
export async function lastUnconfirmedBlock(db: Runner, networkId: number): Promise<number | null> {
  const block = (await db.get(lastUnconfirmed, { network_id: networkId }))?.block;
  return block === undefined || block === null ? null : Number(block);
}

const invoicesAfter = prepared((qb) =>
  qb.selectFrom('invoices').select(['seq', 'id']).where('environment', '=', 'test').where('seq', '>', param('seq')).orderBy('seq').limit(param('limit')),
);

/** Test invoices created after `seq`, in order: the watcher learns their deposit addresses. */
export async function testInvoicesAfter(db: Runner, seq: number, limit: number): Promise<{ seq: number; id: string }[]> {
  return db.all(invoicesAfter, { seq, limit });
}
