import path from 'node:path';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { chainOf, clientsFor, ERC20, paymentsOf, seen, transfer } from '../helpers/chains.js';
import { ikey, type startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The local chains' state (CONTRACT §14): a reset starts them again from genesis, snapshots hold them
 * and a restore brings them back, and a restart of svc between a payment's inclusion and its
 * confirmation credits it once.
 */
const cleanup = perTest();
const dir = tempDir('svc-chains-state-');

const emulator = (options: Parameters<typeof startTestEmulator>[0] = {}): Promise<TestEmulator> => cleanup.emulator({ chains: true, ...options });

async function invoice(emu: TestEmulator, amount = '10.00') {
  const inv = dataOf(await emu.client.test.createInvoice({ body: { amount }, idempotencyKey: ikey() }), 201);
  return { id: inv.id, address: inv.addresses.find((a) => a.family === 'evm')!.depositAddress };
}

async function balanceOf(emu: TestEmulator, networkId: number, holder: string): Promise<bigint> {
  const chain = await chainOf(emu, networkId);
  return clientsFor(chain).public.readContract({
    address: chain.tokens[0]!.contractAddress as Hex,
    abi: ERC20,
    functionName: 'balanceOf',
    args: [holder as Hex],
  });
}

const status = async (emu: TestEmulator, id: string) => dataOf(await emu.client.test.getInvoice({ params: { id } })).status;
const ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const GENESIS = 1_000_000_000_000n;

describe('reset', () => {
  it('starts every chain again from genesis: block 0, the accounts’ balances back, the transfers forgotten', async () => {
    const emu = await emulator();
    const inv = await invoice(emu);
    await seen(emu, inv.id, await transfer(emu, 84532, inv.address, '10'));
    expect(await balanceOf(emu, 84532, ACCOUNT_0)).toBe(GENESIS - 10_000_000n);
    expect((await chainOf(emu, 84532)).blockNumber).toBe(1);

    expect((await emu.call('POST', '/__emulator/reset')).status).toBe(200);
    for (const networkId of [11155111, 84532, 80002, 421614]) expect((await chainOf(emu, networkId)).blockNumber).toBe(0);
    expect(await balanceOf(emu, 84532, ACCOUNT_0)).toBe(GENESIS);
    expect(await balanceOf(emu, 84532, inv.address)).toBe(0n);
    expect(await emu.query('SELECT COUNT(*) AS n FROM chain_transfers')).toEqual([{ n: 0 }]);

    // And it pays again from block 1, credited on the new state.
    const next = await invoice(emu);
    const hash = await transfer(emu, 84532, next.address, '10');
    expect(await seen(emu, next.id, hash)).toMatchObject({ credited: true, confirmed: false });
    expect((await chainOf(emu, 84532)).blockNumber).toBe(1);
  });
});

describe('snapshots', () => {
  it('hold the chains: a restore brings back balances, blocks and the transfers credited, and the watcher goes on from there', async () => {
    const emu = await emulator();
    const inv = await invoice(emu);
    await seen(emu, inv.id, await transfer(emu, 80002, inv.address, '4'));
    await emu.chains!.mine(80002, 1);
    expect(await status(emu, inv.id)).toBe('PARTIALLY_PAID');
    expect((await emu.call('POST', '/__emulator/snapshots', { body: { name: 'partly' } })).status).toBe(201);
    const saved = (await chainOf(emu, 80002)).blockNumber;

    await seen(emu, inv.id, await transfer(emu, 80002, inv.address, '6'));
    await emu.chains!.mine(80002, 5);
    expect(await status(emu, inv.id)).toBe('PAID');
    expect(await balanceOf(emu, 80002, inv.address)).toBe(10_000_000n);

    expect((await emu.call('POST', '/__emulator/snapshots/partly/restore')).status).toBe(200);
    expect((await chainOf(emu, 80002)).blockNumber).toBe(saved);
    expect(await balanceOf(emu, 80002, inv.address)).toBe(4_000_000n);
    expect(await status(emu, inv.id)).toBe('PARTIALLY_PAID');
    expect((await paymentsOf(emu, inv.id)).map((p) => p.amount)).toEqual(['4.00']);

    // The restored chain goes on: a transfer now is block saved + 1, credited once.
    const hash = await transfer(emu, 80002, inv.address, '6');
    expect(await seen(emu, inv.id, hash)).toMatchObject({ credited: true, amount: '6.00' });
    await emu.chains!.mine(80002, 1);
    expect(await status(emu, inv.id)).toBe('PAID');
    expect((await paymentsOf(emu, inv.id)).map((p) => p.amount)).toEqual(['4.00', '6.00']);
  });

  it('a snapshot taken before any payment restores the chains as they were then (their genesis)', async () => {
    const emu = await emulator();
    await emu.snapshot('empty');
    const inv = await invoice(emu);
    await seen(emu, inv.id, await transfer(emu, 421614, inv.address, '3'));
    await emu.restore('empty');
    expect((await chainOf(emu, 421614)).blockNumber).toBe(0);
    expect(await balanceOf(emu, 421614, ACCOUNT_0)).toBe(GENESIS);
  });
});

describe('restarts', () => {
  it('between inclusion and confirmation: the chain comes back from the database, the payment confirms once', async () => {
    const file = path.join(dir, `restart-${ikey()}.sqlite`);
    const first = await emulator({ db: file });
    const inv = await invoice(first);
    const hash = await transfer(first, 84532, inv.address, '10');
    await seen(first, inv.id, hash);
    expect(await status(first, inv.id)).toBe('CONFIRMING');
    await first.stop();

    const second = await emulator({ db: file });
    // The chain as it was: its block, the transfer's receipt, the balances.
    expect((await chainOf(second, 84532)).blockNumber).toBe(1);
    expect(await balanceOf(second, 84532, inv.address)).toBe(10_000_000n);
    const receipt = await second.call('POST', '/__emulator/chains/84532/rpc', {
      body: { jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [hash] },
    });
    expect(receipt.body.result.blockNumber).toBe('0x1');
    expect(await status(second, inv.id)).toBe('CONFIRMING');

    await second.chains!.mine(84532, 1);
    expect(await status(second, inv.id)).toBe('PAID');
    expect((await paymentsOf(second, inv.id)).map((p) => [p.txHash, p.confirmed])).toEqual([[hash, true]]);
    const events = (await second.call('GET', `/__emulator/invoices/${inv.id}/events`)).body.data.map((e: { type: string }) => e.type);
    expect(events).toEqual(['invoice.created', 'invoice.payment_detected', 'invoice.paid']);
  });

  it('when the position was not stored yet, the transfer seen again is not credited twice', async () => {
    const file = path.join(dir, `again-${ikey()}.sqlite`);
    const first = await emulator({ db: file });
    const inv = await invoice(first);
    const hash = await transfer(first, 11155111, inv.address, '10');
    await seen(first, inv.id, hash);
    await first.stop();
    // As if svc had died after crediting the block and before storing its position.
    const { default: Database } = await import('better-sqlite3');
    const raw = new Database(file);
    raw.prepare('UPDATE local_chains SET last_block = 0 WHERE network_id = 11155111').run();
    raw.close();

    const second = await emulator({ db: file });
    await second.chains!.mine(11155111, 1);
    expect(await status(second, inv.id)).toBe('PAID');
    expect((await paymentsOf(second, inv.id)).map((p) => p.txHash)).toEqual([hash]);
    expect(await second.query('SELECT COUNT(*) AS n FROM chain_transfers')).toEqual([{ n: 1 }]);
  });
});

describe('the watcher’s lookups', () => {
  it('use indexes: the payments awaiting confirmations by block, an invoice’s transfers, a transfer by its log', async () => {
    const emu = await emulator();
    const plan = (sql: string) => (emu.store.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan('SELECT * FROM chain_transfers WHERE network_id = 1 AND tx_hash = 1 AND log_index = 1')).toMatch(/USING INDEX/);
    expect(plan('SELECT * FROM chain_transfers WHERE invoice_id = 1 AND payment_id IS NULL ORDER BY created_at')).toMatch(/chain_transfers_invoice/);
    expect(
      plan(
        'SELECT t.invoice_id FROM chain_transfers AS t INNER JOIN payments AS p ON p.id = t.payment_id WHERE t.network_id = 1 AND p.confirmed = 0 AND t.block_number <= 5',
      ),
    ).not.toMatch(/SCAN t\b/);
  });
});
