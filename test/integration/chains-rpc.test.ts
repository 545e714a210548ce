import os from 'node:os';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf } from '../helpers/client-result.js';
import { ACCOUNT_0, chainOf, clientsFor, ERC20, seen } from '../helpers/chains.js';
import { ikey, request, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { expectExactError } from '../helpers/api-response.js';
import { perTest } from '../helpers/per-test.js';
import { send } from '../helpers/raw-http.js';

/**
 * A local chain's rpcUrl (CONTRACT §14): JSON-RPC that viem and ethers use as they are, loopback-only
 * and cross-site safe like the rest of the control plane (§7, §8), browser wallets let through.
 */
let emu: TestEmulator;
const cleanup = perTest();

beforeAll(async () => {
  emu = await startTestEmulator({ chains: true });
}, 60_000);
afterAll(async () => {
  await emu?.stop();
});

const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

describe('the RPC URL', () => {
  it('serves viem as any RPC does: chain id, blocks, reads', async () => {
    const chain = await chainOf(emu, 421614);
    const { public: reader } = clientsFor(chain);
    expect(await reader.getChainId()).toBe(421614);
    expect(await reader.getBlockNumber()).toBe(BigInt(chain.blockNumber));
    expect(await reader.readContract({ address: chain.tokens[0]!.contractAddress as Hex, abi: ERC20, functionName: 'decimals' })).toBe(6);
  });

  it('serves ethers: a transfer signed by an ethers Wallet pays an invoice', async () => {
    const chain = await chainOf(emu, 11155111);
    const provider = new JsonRpcProvider(chain.rpcUrl, 11155111, { staticNetwork: true });
    try {
      expect((await provider.getNetwork()).chainId).toBe(11155111n);
      const inv = dataOf(await emu.client.test.createInvoice({ body: { amount: '7.25' }, idempotencyKey: ikey() }), 201);
      const address = inv.addresses.find((a) => a.family === 'evm')!.depositAddress;
      const usdc = new Contract(
        chain.tokens[0]!.contractAddress,
        ['function transfer(address to, uint256 value) returns (bool)'],
        new Wallet(ACCOUNT_0, provider),
      );
      const sent = await usdc.getFunction('transfer')(address, 7_250_000n);
      await sent.wait();
      expect(await seen(emu, inv.id, sent.hash)).toMatchObject({ credited: true, amount: '7.25', networkId: 11155111 });
    } finally {
      provider.destroy();
    }
  });

  it('passes a batch, and the node’s JSON-RPC errors, as they came', async () => {
    const batch = await emu.call('POST', '/__emulator/chains/84532/rpc', { body: [call('eth_chainId', [], 'a'), call('eth_blockNumber', [], 'b')] });
    expect(batch.status).toBe(200);
    expect(batch.body.map((r: { id: string }) => r.id).sort()).toEqual(['a', 'b']);
    expect(batch.body.find((r: { id: string }) => r.id === 'a').result).toBe('0x14a34');
    const unknown = await emu.call('POST', '/__emulator/chains/84532/rpc', { body: call('eth_noSuchMethod') });
    expect(unknown.status).toBe(200);
    expect(unknown.body.error.code).toEqual(expect.any(Number));
  });

  it('refuses what is not JSON-RPC in the contract’s error shape, and unknown networks', async () => {
    const bad = await emu.call('POST', '/__emulator/chains/84532/rpc', { body: { id: 1, method: 'eth_chainId' } });
    expectExactError(bad, 400, 'validation_failed', 'jsonrpc');
    const badInBatch = await emu.call('POST', '/__emulator/chains/84532/rpc', { body: [call('eth_chainId'), { jsonrpc: '2.0', method: 7 }] });
    expect(badInBatch.body.error).toMatchObject({ code: 'validation_failed', param: '[1].method' });
    expectExactError(await emu.call('POST', '/__emulator/chains/84532/rpc', { body: [1, 2] }), 400, 'invalid_json');
    expectExactError(await emu.call('POST', '/__emulator/chains/84532/rpc', { body: [] }), 400, 'invalid_json');
    expectExactError(await emu.call('POST', '/__emulator/chains/1/rpc', { body: call('eth_chainId') }), 404, 'chain_not_found');
    expectExactError(await emu.call('POST', '/__emulator/chains/abc/rpc', { body: call('eth_chainId') }), 404, 'chain_not_found');
  });
});

describe('a safe local server (CONTRACT §8)', () => {
  it('refuses web pages: another Origin, or Sec-Fetch-Site cross-site or same-site (403 cross_site_request)', async () => {
    const body = call('eth_chainId');
    const refused: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'null' },
    ];
    for (const headers of refused) {
      expectExactError(await emu.call('POST', '/__emulator/chains/84532/rpc', { body, headers }), 403, 'cross_site_request');
    }
    // Its own pages may, and a browser wallet (an extension's origin, which no page can send) may.
    expect((await emu.call('POST', '/__emulator/chains/84532/rpc', { body, headers: { origin: emu.url } })).status).toBe(200);
    for (const origin of ['chrome-extension://nkbihfbeogaeaoehlefnkodbefgpgknn', 'moz-extension://3f1c9a2e-0b7d-4f6e-9e55-1a2b3c4d5e6f']) {
      const res = await emu.call('POST', '/__emulator/chains/84532/rpc', { body, headers: { origin, 'sec-fetch-site': 'none' } });
      expect(res.status, origin).toBe(200);
      expect(res.body.result).toBe('0x14a34');
    }
    // The wallet exception is the RPC's alone: the rest of the control plane refuses an extension too.
    expectExactError(
      await emu.call('POST', '/__emulator/chains/84532/mine', {
        body: { blocks: 1 },
        headers: { origin: 'chrome-extension://nkbihfbeogaeaoehlefnkodbefgpgknn' },
      }),
      403,
      'cross_site_request',
    );
  });

  it('answers 403 control_plane_forbidden to a non-loopback client', async () => {
    const address = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i?.family === 'IPv4' && !i.internal)?.address;
    if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
    const open = await cleanup.emulator({ chains: true, host: '0.0.0.0', allowedHosts: [address] });
    const external = await request(`http://${address}:${open.port}`, 'POST', '/__emulator/chains/84532/rpc', { body: call('eth_chainId') });
    expectExactError(external, 403, 'control_plane_forbidden');
    expectExactError(await request(`http://${address}:${open.port}`, 'GET', '/__emulator/chains'), 403, 'control_plane_forbidden');
    expect((await open.call('POST', '/__emulator/chains/84532/rpc', { body: call('eth_chainId') })).status).toBe(200);
  });

  it('with a control token, a client that is not on loopback needs it (viem sends it as a header)', async () => {
    const address = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i?.family === 'IPv4' && !i.internal)?.address;
    if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
    const token = 'chains-control-token-0123456789';
    const guarded = await cleanup.emulator({ chains: true, host: '0.0.0.0', allowedHosts: [address], config: { controlToken: token } });
    const base = `http://${address}:${guarded.port}`;
    const auth = { authorization: `Bearer ${token}` };
    expectExactError(await request(base, 'POST', '/__emulator/chains/84532/rpc', { body: call('eth_chainId') }), 403, 'control_plane_forbidden');
    const list = await request(base, 'GET', '/__emulator/chains', { headers: auth });
    expect(list.status).toBe(200);
    const chain = { ...list.body.data.find((c: { networkId: number }) => c.networkId === 84532), rpcUrl: `${base}/__emulator/chains/84532/rpc` };
    expect(await clientsFor(chain, ACCOUNT_0, auth).public.getChainId()).toBe(84532);
  });

  it('refuses a Host it does not answer to (DNS rebinding)', async () => {
    const body = JSON.stringify(call('eth_chainId'));
    const res = await send(emu.port, {
      method: 'POST',
      path: '/__emulator/chains/84532/rpc',
      headers: { host: 'rebound.example', 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text).error.code).toBe('host_not_allowed');
  });
});

describe('without chains', () => {
  it('nothing changes: the list is empty, a chain is chain_not_found, the emulator has no chains', async () => {
    const plain = await cleanup.emulator();
    expect(plain.chains).toBeNull();
    expect((await plain.call('GET', '/__emulator/chains')).body).toEqual({ data: [] });
    expectExactError(await plain.call('POST', '/__emulator/chains/84532/rpc', { body: call('eth_chainId') }), 404, 'chain_not_found');
    expectExactError(await plain.call('POST', '/__emulator/chains/84532/mine', { body: { blocks: 1 } }), 404, 'chain_not_found');
  });

  it('chains need SQLite, and sane confirmations: refused before anything starts', async () => {
    await expect(startTestEmulator({ chains: true, database: 'postgres://svc@127.0.0.1:1/none' })).rejects.toThrow(/chains need SQLite/);
    await expect(startTestEmulator({ chains: { confirmations: 0 } })).rejects.toThrow(/chains.confirmations must be a whole number from 1 to 64/);
  });
});
