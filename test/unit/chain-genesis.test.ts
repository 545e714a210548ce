/**
 * What the local chains are made of (CONTRACT §14), checked without a node: anvil's default accounts
 * as written out, the token's storage at genesis, and which networks get a chain.
 */
import { encodeAbiParameters, keccak256 } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { LOCAL_ACCOUNTS, LOCAL_MNEMONIC } from '../../src/chains/accounts.js';
import { balanceSlot, GENESIS_USDC_UNITS, genesisStorage, hexAddress } from '../../src/chains/genesis.js';
import { LOCAL_NETWORKS, localNetwork, tokenAt } from '../../src/chains/networks.js';

describe('local accounts', () => {
  it("are anvil's ten, derived from its mnemonic at m/44'/60'/0'/0/i", () => {
    expect(LOCAL_ACCOUNTS).toHaveLength(10);
    LOCAL_ACCOUNTS.forEach((account, i) => {
      const derived = mnemonicToAccount(LOCAL_MNEMONIC, { addressIndex: i });
      expect(account.address).toBe(derived.address);
      expect(`0x${Buffer.from(derived.getHdKey().privateKey!).toString('hex')}`).toBe(account.privateKey);
    });
  });
});

describe('the token at genesis', () => {
  it("writes each account's balance where Solidity keeps balanceOf[account] (slot 0), and the total supply at slot 2", () => {
    const writes = genesisStorage();
    expect(writes).toHaveLength(11);
    for (const [i, account] of LOCAL_ACCOUNTS.entries()) {
      const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [hexAddress(account.address), 0n]));
      expect(writes[i]).toEqual([slot, `0x${GENESIS_USDC_UNITS.toString(16).padStart(64, '0')}`]);
      expect(balanceSlot(hexAddress(account.address))).toBe(slot);
    }
    expect(GENESIS_USDC_UNITS).toBe(1_000_000_000_000n);
    expect(writes[10]).toEqual([`0x${'2'.padStart(64, '0')}`, `0x${(GENESIS_USDC_UNITS * 10n).toString(16).padStart(64, '0')}`]);
  });

  it('refuses what is not an address', () => {
    expect(() => hexAddress('0x1234')).toThrow(/not an address/);
  });
});

describe('local networks', () => {
  it("are the test environment's EVM networks, each with its USDC; Tron, Solana and live networks get none", () => {
    expect(LOCAL_NETWORKS.map((n) => n.networkId)).toEqual([11155111, 84532, 80002, 421614]);
    expect(localNetwork(2494104990)).toBeUndefined();
    expect(localNetwork(103)).toBeUndefined();
    expect(localNetwork(8453)).toBeUndefined();
    const base = localNetwork(84532)!;
    expect(tokenAt(base, '0x036cbd53842c5426634e7929541ec2318f3dcf7e')?.symbol).toBe('USDC');
    expect(tokenAt(base, '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238')).toBeUndefined();
  });
});
