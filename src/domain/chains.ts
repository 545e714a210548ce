/**
 * The chain registry of CONTRACT §3: which networks and stablecoin contracts an invoice can be
 * paid on, per environment. The contract addresses are the real ones, so that explorers, wallets
 * and integrators' own allow-lists recognise what the emulator shows.
 *
 * Sources (checked while writing this file; each EVM address verified as EIP-55
 * with viem's getAddress, each Tron address as Base58Check 0x41, each mint as 32 bytes):
 * - Testnet USDC (Sepolia, Base Sepolia, Polygon Amoy, Arbitrum Sepolia, Solana Devnet): Circle,
 *   https://developers.circle.com/stablecoins/usdc-contract-addresses (testnet table), repeated by
 *   Circle's use-usdc skill and by Interlace's "USDC on Testing Networks" page.
 * - Mainnet USDC (Ethereum, Polygon PoS, Base, Arbitrum One, OP Mainnet, Solana): the same Circle
 *   page; Polygon's native USDC (not the bridged USDC.e 0x2791…) per Circle's post "Native USDC
 *   on Polygon PoS".
 * - Mainnet USDT on Ethereum 0xdAC17F…, Arbitrum One 0xFd086b… (now USDT0), OP Mainnet 0x94b008…,
 *   Polygon "(PoS) Tether USD" 0xc2132D…, Tron TR7NHq…: explorer token trackers as reproduced in
 *   Optimism's official token list (ethereum-optimism.github.io data/USDT/data.json) and
 *   independent address lists (ethskills "Contract Addresses", stablecoin gists).
 * - Base has no Tether-issued USDT: 0xfde4C9… is the bridged "Tether USD" of the Superchain
 *   standard bridge, the Base entry of Optimism's token list and the most used USDT on Base.
 * - BNB Smart Chain: Binance-Peg USD Coin 0x8AC76a… and Binance-Peg BSC-USD (USDT) 0x55d398…,
 *   both 18 decimals (BscScan token trackers, as listed in the same gists).
 * - Tron Shasta has no Tether deployment: TG3XXyExBkPp9nzdajDZsozEu4BkaSJozs is the community test
 *   USDT (6 decimals) that Shasta faucets hand out and that Tron SDK examples and open-source
 *   payment gateways configure for Shasta.
 * - Solana mainnet USDC mint EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v (Circle; bytes
 *   c6fa7af3…5d61). Mind the 5th–6th characters "dd": a frequent typo writes "Jd", which also
 *   decodes to 32 bytes but is not the mint.
 *
 * Solana has no EIP-155 chain id; 101 (mainnet-beta) and 103 (devnet) are the historical
 * cluster ids that wallets and payment APIs still use. Tron's ids are the low 4 bytes of each
 * network's genesis block hash (0x2b6653dc mainnet, 0x94a9059e Shasta), as TronLink reports.
 */
import type { Environment } from './environment.js';

/** Address and signature scheme a chain uses; decides how deposit addresses are derived. */
export type ChainFamily = 'evm' | 'tron' | 'solana';

/** One stablecoin contract (or SPL mint) on one chain. */
export interface TokenInfo {
  symbol: string;
  contractAddress: string;
  decimals: number;
}

/** One network an invoice can be paid on. */
export interface ChainInfo {
  /** Stable UUID v5 of `"<environment>:<networkId>"` under {@link CHAIN_ID_NAMESPACE}. */
  chainId: string;
  chainName: string;
  family: ChainFamily;
  networkId: number;
  environment: Environment;
  tokens: readonly TokenInfo[];
}

/**
 * Namespace of the chain UUIDs. Fixed forever: changing it would change every `chainId` the
 * emulator has ever served, breaking integrators that stored them.
 */
export const CHAIN_ID_NAMESPACE = '2ffe6c1e-6315-450e-b59f-072aaade40ba';

function token(symbol: string, contractAddress: string, decimals: number): TokenInfo {
  return Object.freeze({ symbol, contractAddress, decimals });
}

/**
 * `chainId` is the RFC 9562 UUID v5 (SHA-1, name-based) of `"<environment>:<networkId>"`, written
 * out rather than derived at import: deriving the fourteen took ~8 ms of every start.
 * test/unit/chains.test.ts derives each one and checks it.
 */
function chain(environment: Environment, networkId: number, chainId: string, chainName: string, family: ChainFamily, tokens: TokenInfo[]): ChainInfo {
  return Object.freeze({
    chainId,
    chainName,
    family,
    networkId,
    environment,
    tokens: Object.freeze(tokens),
  });
}

const usdc6 = (address: string): TokenInfo => token('USDC', address, 6);
const usdt6 = (address: string): TokenInfo => token('USDT', address, 6);

/** Every chain the emulator knows: test chains first, then live, each in CONTRACT §3's order. */
export const CHAINS: readonly ChainInfo[] = Object.freeze([
  // test
  chain('test', 11155111, '800e6d0a-56dd-5278-ba3c-41d1541469b7', 'Ethereum Sepolia', 'evm', [usdc6('0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238')]),
  chain('test', 84532, '623360ad-e250-53df-b88e-192576d9503c', 'Base Sepolia', 'evm', [usdc6('0x036CbD53842c5426634e7929541eC2318f3dCF7e')]),
  chain('test', 80002, '340389a8-7257-590d-b743-6fc033249e96', 'Polygon Amoy', 'evm', [usdc6('0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582')]),
  chain('test', 421614, 'c59cb78f-6b86-5368-929d-a7d72131a660', 'Arbitrum Sepolia', 'evm', [usdc6('0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d')]),
  chain('test', 2494104990, 'b53ff2a4-8103-50d0-a801-d8a3dab22f33', 'Tron Shasta', 'tron', [usdt6('TG3XXyExBkPp9nzdajDZsozEu4BkaSJozs')]),
  chain('test', 103, 'e5609c78-cd8b-55bb-ac8f-5e6c31fa6a26', 'Solana Devnet', 'solana', [usdc6('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')]),
  // live
  chain('live', 1, '860073e9-5c90-5ead-b4fe-23ea53e2415d', 'Ethereum', 'evm', [
    usdc6('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
    usdt6('0xdAC17F958D2ee523a2206206994597C13D831ec7'),
  ]),
  chain('live', 137, 'e5a0db04-c420-5a61-8330-3ff87c125a10', 'Polygon', 'evm', [
    usdc6('0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'), // native USDC, not the bridged USDC.e
    usdt6('0xc2132D05D31c914a87C6611C10748AEb04B58e8F'),
  ]),
  chain('live', 8453, '9b28fc54-f075-502c-9a62-b05678c08197', 'Base', 'evm', [
    usdc6('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
    usdt6('0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2'), // bridged: Tether issues no USDT on Base
  ]),
  chain('live', 42161, '3ec66afe-2241-580a-aefc-4201ed8584a3', 'Arbitrum One', 'evm', [
    usdc6('0xaf88d065e77c8cC2239327C5EDb3A432268e5831'), // native USDC, not the bridged USDC.e
    usdt6('0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9'),
  ]),
  chain('live', 10, 'a7ed7cf5-a01b-5457-b2cf-d4ac49c65e1a', 'OP Mainnet', 'evm', [
    usdc6('0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85'), // native USDC, not the bridged USDC.e
    usdt6('0x94b008aA00579c1307B0EF2c499aD98a8ce58e58'),
  ]),
  chain('live', 56, 'd148770e-cbbb-5b1a-b3fd-5530530e286c', 'BNB Smart Chain', 'evm', [
    token('USDC', '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', 18),
    token('USDT', '0x55d398326f99059fF775485246999027B3197955', 18),
  ]),
  chain('live', 728126428, '76b83105-518a-582b-b305-251bc3e9f761', 'Tron', 'tron', [usdt6('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')]),
  chain('live', 101, '199e2766-5d1a-510d-bc4c-0466f0c5974d', 'Solana', 'solana', [usdc6('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')]),
]);

const BY_ENV: Readonly<Record<Environment, readonly ChainInfo[]>> = {
  test: Object.freeze(CHAINS.filter((c) => c.environment === 'test')),
  live: Object.freeze(CHAINS.filter((c) => c.environment === 'live')),
};

/** The chains of one environment, in registry order. */
export function chainsFor(env: Environment): readonly ChainInfo[] {
  return BY_ENV[env];
}

/** The chain with this network id in this environment, if any (ids never cross environments). */
export function chainByNetworkId(env: Environment, networkId: number): ChainInfo | undefined {
  return BY_ENV[env].find((c) => c.networkId === networkId);
}

/** The network ids of one environment, in registry order (a fresh array the caller may keep). */
export function knownNetworkIds(env: Environment): number[] {
  return BY_ENV[env].map((c) => c.networkId);
}
