import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ACCOUNT_0, chainOf, clientsFor, ERC20, paymentsOf, seen, transfer } from '../helpers/chains.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * Local chains (CONTRACT §14): invoices paid by real signed ERC-20 transfers, sent with viem through
 * each chain's rpcUrl to real anvil nodes, become payments with the events, statuses and amounts of
 * §3–§5; what is not creditable is listed with its reason.
 */
let emu: TestEmulator;
let rx: Receiver;

beforeAll(async () => {
  rx = await startReceiver();
  emu = await startTestEmulator({ chains: true });
  dataOf(await emu.client.test.putWebhook({ body: { url: `${rx.url}/hooks`, secret: 'whsec_local_chains_1' } }));
}, 60_000);
afterAll(async () => {
  await emu?.stop();
  await rx?.close();
});

interface Invoice {
  id: string;
  status: string;
  amountReceived: string;
  addresses: { networkId: number; depositAddress: string; family: string }[];
}

async function invoice(body: { amount: string; networkId?: number; token?: string } = { amount: '25.00' }): Promise<Invoice> {
  return dataOf(await emu.client.test.createPartnerInvoice({ body: { merchantId: emu.keys.test.merchantId, ...body }, idempotencyKey: ikey() }), 201);
}

const evmAddress = (inv: Invoice) => inv.addresses.find((a) => a.family === 'evm')?.depositAddress ?? '';

async function current(id: string): Promise<Invoice> {
  return dataOf(await emu.client.test.getPartnerInvoice({ params: { id } }));
}

async function eventsOf(id: string): Promise<{ type: string; data: { status: string; token: string | null; amountReceived: string; sequence: number } }[]> {
  return (await emu.call('GET', `/__emulator/invoices/${id}/events`)).body.data;
}

async function mine(networkId: number, blocks = 1) {
  const res = await emu.call('POST', `/__emulator/chains/${networkId}/mine`, { body: { blocks } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('GET /__emulator/chains', () => {
  it('lists one chain per EVM test network, each with its chain id, its USDC at the invoices’ address and ten funded accounts', async () => {
    const res = await emu.call('GET', '/__emulator/chains');
    expect(res.status).toBe(200);
    const chains = res.body.data;
    expect(chains.map((c: { networkId: number }) => c.networkId)).toEqual([11155111, 84532, 80002, 421614]);
    const inv = await invoice();
    for (const chain of chains) {
      expect(chain).toMatchObject({ rpcUrl: `${emu.url}/__emulator/chains/${chain.networkId}/rpc`, confirmations: 2 });
      const address = (inv.addresses as unknown as { networkId: number; tokens: { contractAddress: string; decimals: number }[] }[]).find(
        (a) => a.networkId === chain.networkId,
      )!;
      expect(chain.tokens).toEqual([{ symbol: 'USDC', contractAddress: address.tokens[0]!.contractAddress, decimals: 6 }]);
      expect(chain.accounts).toHaveLength(10);
      const { public: reader } = clientsFor(chain);
      expect(await reader.getChainId()).toBe(chain.networkId);
      const usdc = chain.tokens[0].contractAddress as Hex;
      for (const account of [chain.accounts[0], chain.accounts[9]]) {
        expect(await reader.readContract({ address: usdc, abi: ERC20, functionName: 'balanceOf', args: [account.address] })).toBeGreaterThan(0n);
        expect(await reader.getBalance({ address: account.address })).toBeGreaterThan(9_999n * 10n ** 18n);
      }
      expect(await reader.readContract({ address: usdc, abi: ERC20, functionName: 'decimals' })).toBe(6);
    }
  });
});

describe('a transfer to an invoice’s deposit address is a payment', () => {
  it.each([11155111, 84532, 80002, 421614])(
    'on %i: detected when mined (CONFIRMING), confirmed one block later (PAID), with its transaction hash',
    async (networkId) => {
      const inv = await invoice();
      const hash = await transfer(emu, networkId, evmAddress(inv), '25');
      const entry = await seen(emu, inv.id, hash);
      expect(entry).toMatchObject({ networkId, token: 'USDC', amount: '25.00', txHash: hash, confirmed: false, credited: true });
      expect((await current(inv.id)).status).toBe('CONFIRMING');
      await mine(networkId);
      expect(await current(inv.id)).toMatchObject({ status: 'PAID', amountReceived: '25.00' });
      expect((await eventsOf(inv.id)).map((e) => [e.type, e.data.status, e.data.token])).toEqual([
        ['invoice.created', 'CREATED', null],
        ['invoice.payment_detected', 'CONFIRMING', 'USDC'],
        ['invoice.paid', 'PAID', 'USDC'],
      ]);
      expect((await paymentsOf(emu, inv.id)).map((p) => [p.txHash, p.confirmed])).toEqual([[hash, true]]);
    },
  );

  it('webhooks follow, signed, as for any payment', async () => {
    const inv = await invoice({ amount: '4.20' });
    await seen(emu, inv.id, await transfer(emu, 84532, evmAddress(inv), '4.2'));
    await mine(84532);
    const types = async () =>
      rx.requests
        .map((r) => JSON.parse(r.rawBody))
        .filter((e) => e.data.invoiceId === inv.id)
        .map((e) => e.type);
    await expect.poll(types, { timeout: 10_000 }).toEqual(['invoice.created', 'invoice.payment_detected', 'invoice.paid']);
    expect(rx.requests.at(-1)!.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it("the dashboard's change feed tells of it (kind chain): no request made that write", async () => {
    const controller = new AbortController();
    const res = await fetch(`${emu.url}/__emulator/changes`, { signal: controller.signal });
    const reader = res.body!.getReader();
    let text = '';
    const sawChain = (async () => {
      while (!text.includes('"kind":"chain"')) {
        const { value, done } = await reader.read();
        if (done) return false;
        text += new TextDecoder().decode(value);
      }
      return true;
    })();
    try {
      const inv = await invoice({ amount: '1.00' });
      await seen(emu, inv.id, await transfer(emu, 84532, evmAddress(inv), '1'));
      expect(await sawChain).toBe(true);
    } finally {
      controller.abort();
    }
  });

  it('partial then the rest: PARTIALLY_PAID, then PAID; amounts exact (value ÷ 10^6)', async () => {
    const inv = await invoice({ amount: '10.00' });
    await seen(emu, inv.id, await transfer(emu, 80002, evmAddress(inv), '3.333333'));
    await mine(80002);
    expect(await current(inv.id)).toMatchObject({ status: 'PARTIALLY_PAID', amountReceived: '3.333333' });
    await seen(emu, inv.id, await transfer(emu, 80002, evmAddress(inv), '6.666667'));
    await mine(80002);
    expect(await current(inv.id)).toMatchObject({ status: 'PAID', amountReceived: '10.00' });
    expect((await eventsOf(inv.id)).map((e) => e.type)).toEqual([
      'invoice.created',
      'invoice.payment_detected',
      'invoice.partially_paid',
      'invoice.payment_detected',
      'invoice.paid',
    ]);
  });

  it('over: PAID then overpaid; a payment after PAID only raises amountReceived', async () => {
    const inv = await invoice({ amount: '5.00' });
    await seen(emu, inv.id, await transfer(emu, 421614, evmAddress(inv), '6'));
    await mine(421614);
    expect(await current(inv.id)).toMatchObject({ status: 'PAID', amountReceived: '6.00' });
    await seen(emu, inv.id, await transfer(emu, 421614, evmAddress(inv), '1'));
    await mine(421614);
    expect(await current(inv.id)).toMatchObject({ status: 'PAID', amountReceived: '7.00' });
    expect((await eventsOf(inv.id)).map((e) => e.type)).toEqual([
      'invoice.created',
      'invoice.payment_detected',
      'invoice.paid',
      'invoice.overpaid',
      'invoice.overpaid',
    ]);
  });

  it('late: a transfer to an EXPIRED invoice confirms as invoice.paid_late and leaves it EXPIRED', async () => {
    const inv = await invoice({ amount: '2.00' });
    dataOf(await emu.client.test.expireTestInvoice({ params: { id: inv.id } }));
    await seen(emu, inv.id, await transfer(emu, 11155111, evmAddress(inv), '2'));
    await mine(11155111);
    expect(await current(inv.id)).toMatchObject({ status: 'EXPIRED', amountReceived: '2.00' });
    expect((await eventsOf(inv.id)).map((e) => e.type)).toEqual(['invoice.created', 'invoice.expired', 'invoice.paid_late']);
  });

  it('a clock advance mines the blocks confirming payments need before it answers', async () => {
    const inv = await invoice({ amount: '1.50' });
    await seen(emu, inv.id, await transfer(emu, 84532, evmAddress(inv), '1.5'));
    const before = (await chainOf(emu, 84532)).blockNumber;
    const res = await emu.call('POST', '/__emulator/clock/advance', { body: { seconds: 1 } });
    expect(res.status).toBe(200);
    expect((await current(inv.id)).status).toBe('PAID');
    expect((await chainOf(emu, 84532)).blockNumber).toBe(before + 1);
    // Nothing pending: the next advance mines nothing.
    await emu.advanceClock(1);
    expect((await chainOf(emu, 84532)).blockNumber).toBe(before + 1);
  });
});

describe('transfers that credit nothing are listed with why', () => {
  it('another token: a second ERC-20 on the chain, sent to the deposit address', async () => {
    const chain = await chainOf(emu, 84532);
    const other = '0x00000000000000000000000000000000000a11ce';
    const { public: reader } = clientsFor(chain);
    // Another token: the same contract's code at another address, account 0 given 100 of it.
    const code = await reader.getCode({ address: chain.tokens[0]!.contractAddress as Hex });
    const rpc = (method: string, params: unknown[]) => emu.call('POST', '/__emulator/chains/84532/rpc', { body: { jsonrpc: '2.0', id: 1, method, params } });
    expect((await rpc('anvil_setCode', [other, code])).body.error).toBeUndefined();
    const { keccak256, encodeAbiParameters, numberToHex } = await import('viem');
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [chain.accounts[0]!.address as Hex, 0n]));
    await rpc('anvil_setStorageAt', [other, slot, numberToHex(100_000_000n, { size: 32 })]);

    const inv = await invoice({ amount: '5.00' });
    const hash = await transfer(emu, 84532, evmAddress(inv), '5', { token: other });
    expect(await seen(emu, inv.id, hash)).toMatchObject({ credited: false, amount: '5.00', token: other, confirmed: false, networkId: 84532 });
    expect((await seen(emu, inv.id, hash)).reason).toMatch(/^another token: 0x0{35}a11ce is not a token accepted on Base Sepolia/);
    await mine(84532, 3);
    expect(await current(inv.id)).toMatchObject({ status: 'CREATED', amountReceived: '0.00' });
    expect((await eventsOf(inv.id)).map((e) => e.type)).toEqual(['invoice.created']);
  });

  it('outside the invoice’s route lock: USDC on another network', async () => {
    const inv = await invoice({ amount: '5.00', networkId: 84532, token: 'USDC' });
    // One EVM deposit address for every EVM network (CONTRACT §3): the lock names which one pays.
    const hash = await transfer(emu, 11155111, evmAddress(inv), '5');
    const entry = await seen(emu, inv.id, hash);
    expect(entry).toMatchObject({ credited: false, networkId: 11155111, token: 'USDC', amount: '5.00' });
    expect(entry.reason).toBe("Ethereum Sepolia (11155111) is outside the invoice's route lock (networkId 84532, USDC)");
    expect((await current(inv.id)).status).toBe('CREATED');
    // The locked network pays it.
    await seen(emu, inv.id, await transfer(emu, 84532, evmAddress(inv), '5'));
    await mine(84532);
    expect((await current(inv.id)).status).toBe('PAID');
    expect((await paymentsOf(emu, inv.id)).map((p) => p.credited)).toEqual([false, true]);
  });

  it("a network outside the merchant's chains", async () => {
    const merchantId = emu.keys.test.merchantId;
    const set = (networkIds: number[] | null) => emu.call('PUT', `/__emulator/merchants/${merchantId}/chains`, { body: { networkIds } });
    expect((await set([84532, 2494104990])).status).toBe(200);
    try {
      const inv = await invoice({ amount: '5.00' });
      const hash = await transfer(emu, 80002, evmAddress(inv), '5');
      expect((await seen(emu, inv.id, hash)).reason).toBe("Polygon Amoy (80002) is not one of the networks this invoice accepts (the merchant's chains)");
      expect((await current(inv.id)).status).toBe('CREATED');
    } finally {
      await set(null);
    }
  });

  it('a transfer of 0', async () => {
    const inv = await invoice({ amount: '5.00' });
    const hash = await transfer(emu, 84532, evmAddress(inv), '0');
    expect(await seen(emu, inv.id, hash)).toMatchObject({ credited: false, reason: 'a transfer of 0 credits nothing', amount: '0.00' });
  });

  it('a live invoice is never touched: its address gets a transfer, nothing is recorded', async () => {
    const live = dataOf(await emu.client.live.createInvoice({ body: { amount: '5.00' }, idempotencyKey: ikey() }), 201);
    const address = live.addresses.find((a) => a.family === 'evm')!.depositAddress;
    const hash = await transfer(emu, 84532, address, '5');
    // A test invoice paid after it in a later block: once that one is seen, the live one's block was processed.
    const marker = await invoice({ amount: '1.00' });
    await seen(emu, marker.id, await transfer(emu, 84532, evmAddress(marker), '1'));
    expect(await paymentsOf(emu, live.id)).toEqual([]);
    expect(dataOf(await emu.client.live.getInvoice({ params: { id: live.id } })).status).toBe('CREATED');
    expect(hash).toMatch(/^0x/);
  });
});

describe('POST /__emulator/chains/{networkId}/mine', () => {
  it('mines N blocks and answers the chain after them', async () => {
    const before = (await chainOf(emu, 421614)).blockNumber;
    const after = await mine(421614, 3);
    expect(after).toMatchObject({ networkId: 421614, blockNumber: before + 3 });
    // The body may be left out: one block.
    const one = await emu.call('POST', '/__emulator/chains/421614/mine');
    expect(one.body.blockNumber).toBe(before + 4);
  });

  it('refuses an unknown network (404 chain_not_found) and a bad count (400 validation_failed)', async () => {
    const unknown = await emu.call('POST', '/__emulator/chains/2494104990/mine', { body: { blocks: 1 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('chain_not_found');
    const bad = await emu.call('POST', '/__emulator/chains/84532/mine', { body: { blocks: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', param: 'blocks' });
  });
});

describe('with one confirmation', () => {
  it('a payment is confirmed in its own block: created, then paid (no payment_detected, as a payment made confirmed)', async () => {
    const one = await startTestEmulator({ chains: { confirmations: 1 } });
    try {
      expect((await chainOf(one, 84532)).confirmations).toBe(1);
      const inv = dataOf(await one.client.test.createInvoice({ body: { amount: '3.00' }, idempotencyKey: ikey() }), 201);
      const address = inv.addresses.find((a) => a.family === 'evm')!.depositAddress;
      const hash = await transfer(one, 84532, address, '3');
      expect(await seen(one, inv.id, hash)).toMatchObject({ confirmed: true, credited: true });
      expect(dataOf(await one.client.test.getInvoice({ params: { id: inv.id } })).status).toBe('PAID');
      expect(((await one.call('GET', `/__emulator/invoices/${inv.id}/events`)).body.data as { type: string }[]).map((e) => e.type)).toEqual([
        'invoice.created',
        'invoice.paid',
      ]);
    } finally {
      await one.stop();
    }
  });
});

describe('the token is a real ERC-20', () => {
  it('approve, allowance and transferFrom; a transfer beyond the balance reverts with USDC’s reason', async () => {
    const chain = await chainOf(emu, 11155111);
    const usdc = chain.tokens[0]!.contractAddress as Hex;
    const owner = clientsFor(chain, ACCOUNT_0);
    const spender = clientsFor(chain, chain.accounts[1]!.privateKey);
    const spenderAddress = chain.accounts[1]!.address as Hex;
    const approve = await owner.wallet.writeContract({ address: usdc, abi: ERC20, functionName: 'approve', args: [spenderAddress, 2_000_000n] });
    await owner.public.waitForTransactionReceipt({ hash: approve, pollingInterval: 20 });
    expect(
      await owner.public.readContract({ address: usdc, abi: ERC20, functionName: 'allowance', args: [chain.accounts[0]!.address as Hex, spenderAddress] }),
    ).toBe(2_000_000n);
    // The spender pays an invoice from the owner's balance: still a Transfer to the deposit address.
    const inv = await invoice({ amount: '2.00' });
    const hash = await spender.wallet.writeContract({
      address: usdc,
      abi: ERC20,
      functionName: 'transferFrom',
      args: [chain.accounts[0]!.address as Hex, evmAddress(inv) as Hex, 2_000_000n],
    });
    await seen(emu, inv.id, hash);
    await mine(11155111);
    expect((await current(inv.id)).status).toBe('PAID');
    await expect(owner.wallet.writeContract({ address: usdc, abi: ERC20, functionName: 'transfer', args: [spenderAddress, 10n ** 15n] })).rejects.toThrow(
      /ERC20: transfer amount exceeds balance/,
    );
  });
});
