import { encodeAbiParameters, type Hex, keccak256, numberToHex } from 'viem';
import { LOCAL_ACCOUNTS } from './accounts.js';

/** What every default account holds of each network's test USDC: 1,000,000 USDC (6 decimals). */
export const GENESIS_USDC_UNITS = 1_000_000n * 10n ** 6n;

/** TestUSDC.sol's storage layout: balanceOf at slot 0, allowance at 1, totalSupply at 2. */
const BALANCES_SLOT = 0n;
const TOTAL_SUPPLY_SLOT = 2n;

/** The storage slot of `balanceOf[holder]`: keccak256(holder ‖ slot), as Solidity lays out a mapping. */
export function balanceSlot(holder: Hex): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, BALANCES_SLOT]));
}

/**
 * The token's storage at genesis, as `[slot, value]` writes (anvil_setStorageAt): each default
 * account's balance, and the total supply that is their sum. Storage writes rather than minting
 * through the contract: the contract has no mint (like USDC, whose minters are Circle's), and writes
 * leave the chain at block 0, with no transaction an integrator's watcher would have to skip.
 */
export function genesisStorage(): [Hex, Hex][] {
  const value = numberToHex(GENESIS_USDC_UNITS, { size: 32 });
  const writes: [Hex, Hex][] = LOCAL_ACCOUNTS.map((a) => [balanceSlot(hexAddress(a.address)), value]);
  writes.push([numberToHex(TOTAL_SUPPLY_SLOT, { size: 32 }), numberToHex(GENESIS_USDC_UNITS * BigInt(LOCAL_ACCOUNTS.length), { size: 32 })]);
  return writes;
}

/** An address as viem's `0x…` type (the accounts are written out as such). */
export function hexAddress(address: string): Hex {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new TypeError(`not an address: ${address}`);
  return `0x${address.slice(2)}`;
}
