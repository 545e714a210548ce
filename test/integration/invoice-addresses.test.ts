import { createHash } from 'node:crypto';
import { base58 } from '@scure/base';
import { isAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientInput } from '../../src/client/typed.js';
import { dataOf } from '../helpers/client-result.js';
import { ikey, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

/** The addresses the API returns, checked with independent decoders (CONTRACT §3). */
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.stop());

// `key` picks the environment: the test merchant's by default, the live one's where given.
const create = async (body: ClientInput<'createInvoice'>['body'], key = emu.keys.test.merchantKey) => {
  const res = await emu.client.test.createInvoice({ key, body, idempotencyKey: ikey() });
  return dataOf(res, 201);
};

function decodeTron(address: string): Buffer {
  const raw = Buffer.from(base58.decode(address));
  const payload = raw.subarray(0, -4);
  const sha = (b: Buffer) => createHash('sha256').update(b).digest();
  expect(raw.subarray(-4)).toEqual(sha(sha(payload)).subarray(0, 4));
  return payload;
}

describe('deposit addresses of created invoices', () => {
  it('EVM addresses are EIP-55 checksummed; Tron decodes with 0x41; Solana is 32 bytes', async () => {
    for (const key of [emu.keys.test.merchantKey, emu.keys.live.merchantKey]) {
      const inv = await create({ amount: '1.00' }, key);
      for (const a of inv.addresses) {
        if (a.family === 'evm') expect(isAddress(a.depositAddress, { strict: true })).toBe(true);
        if (a.family === 'tron') {
          const payload = decodeTron(a.depositAddress);
          expect(payload.length).toBe(21);
          expect(payload[0]).toBe(0x41);
        }
        if (a.family === 'solana') expect(base58.decode(a.depositAddress).length).toBe(32);
        expect(a.chainId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        for (const t of a.tokens) expect(t.decimals === 6 || (a.networkId === 56 && t.decimals === 18)).toBe(true);
      }
    }
  });

  it('are unique per invoice and stable when read back', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const inv = await create({ amount: '1' });
      const again = dataOf(await emu.client.test.getInvoice({ params: { id: inv.id } }));
      expect(again.addresses).toEqual(inv.addresses);
      for (const a of inv.addresses) seen.add(`${a.family}:${a.depositAddress}`);
    }
    // One EVM address (shared across EVM chains), one Tron and one Solana address per invoice.
    expect(seen.size).toBe(60);
  });
});

describe('route locks', () => {
  it('networkId keeps that chain with all its tokens', async () => {
    const inv = await create({ amount: '1', networkId: 1 }, emu.keys.live.merchantKey);
    expect(inv.addresses.map((a) => a.networkId)).toEqual([1]);
    expect(inv.addresses[0]!.tokens.map((t) => t.symbol)).toEqual(['USDC', 'USDT']);
  });

  it('token keeps the chains that carry it, each listing only that token', async () => {
    const inv = await create({ amount: '1', token: 'USDT' }, emu.keys.live.merchantKey);
    expect(inv.addresses.map((a) => a.networkId)).toEqual([1, 137, 8453, 42161, 10, 56, 728126428]);
    for (const a of inv.addresses) expect(a.tokens.map((t) => t.symbol)).toEqual(['USDT']);
  });

  it('networkId and token together keep one chain and one token', async () => {
    const inv = await create({ amount: '1', networkId: 84532, token: 'USDC' });
    expect(inv.addresses).toHaveLength(1);
    expect(inv.addresses[0]).toMatchObject({
      networkId: 84532,
      chainName: 'Base Sepolia',
      tokens: [{ symbol: 'USDC', contractAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 }],
    });
  });
});
