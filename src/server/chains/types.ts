import type { LocalChain } from '../../chains/local-chain.js';
import type { RawAnswer } from '../../chains/node-rpc.js';

import type { LocalChainInfo } from '../public-types.js';

/** A local chain as `GET /__emulator/chains` and the ready event show it (CONTRACT §14). */
export type LocalChainView = LocalChainInfo;

/** The running local chains, as the control plane, the clock, reset and snapshots drive them (./runtime.ts). */
export interface ChainsControl {
  readonly confirmations: number;
  /** The networks with a chain, in CONTRACT §3's order. */
  networkIds(): number[];
  list(): Promise<LocalChainView[]>;
  /** The chain of `networkId`; 404 `chain_not_found` without one. */
  chain(networkId: number): LocalChain;
  /** Mines `blocks` blocks, then credits and confirms what they make due before resolving. */
  mine(networkId: number, blocks: number): Promise<LocalChainView>;
  /** Resolves once every block mined so far on the chain is processed. */
  sync(networkId: number): Promise<void>;
  /** A JSON-RPC body to the chain's node, its answer as it came (`rpcUrl`). */
  forward(networkId: number, body: string): Promise<RawAnswer>;
  /** Before the clock moves: mines on every chain the blocks its pending payments need, and processes them. */
  settle(): Promise<void>;
  /** Stops processing (a reset or a restore is about to replace the state). */
  pause(): Promise<void>;
  /** Processing again where it stopped (a restore that failed changed nothing). */
  resume(): void;
  /** After a reset: every chain from genesis, processing again. */
  restart(): Promise<void>;
  /** Saves every chain's state in the store (before a snapshot is copied). */
  save(): Promise<void>;
  /** After a restore: every chain as the restored store says, processing again. */
  restored(): Promise<void>;
  /** Saves the states and stops the nodes. */
  stop(): Promise<void>;
}
