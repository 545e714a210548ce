import { chainsFor, type ChainInfo, type TokenInfo } from '../domain/chains.js';

/**
 * The networks that get a local chain (CONTRACT §14): the test environment's EVM networks, each with
 * its own chain id (Ethereum Sepolia 11155111, Base Sepolia 84532, Polygon Amoy 80002, Arbitrum
 * Sepolia 421614). Tron and Solana stay simulated; live networks never get one.
 */
export const LOCAL_NETWORKS: readonly ChainInfo[] = Object.freeze(chainsFor('test').filter((c) => c.family === 'evm'));

/** The local network with this id, if any. */
export function localNetwork(networkId: number): ChainInfo | undefined {
  return LOCAL_NETWORKS.find((c) => c.networkId === networkId);
}

/** The token a network accepts at this contract address (compared without case), if any. */
export function tokenAt(network: ChainInfo, contractAddress: string): TokenInfo | undefined {
  const wanted = contractAddress.toLowerCase();
  return network.tokens.find((t) => t.contractAddress.toLowerCase() === wanted);
}

/** How many blocks make a local chain's payment confirmed, its own block included (CONTRACT §14). */
export const DEFAULT_CONFIRMATIONS = 2;
