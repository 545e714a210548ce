import { createPublicClient, isHex, numberToHex, webSocket } from 'viem';
import type { ChainInfo } from '../domain/chains.js';
import { type AnvilNode, startAnvilNode } from './anvil-node.js';
import { genesisStorage } from './genesis.js';
import { isRecord, NodeRpc, NodeUnreachable, quantity } from './node-rpc.js';
import { TEST_USDC_RUNTIME } from './token/bytecode.js';

/** keccak256("Transfer(address,address,uint256)"): ERC-20's (and ERC-721's) Transfer event. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** An ERC-20 Transfer log, decoded: addresses lowercase, the value in the token's base units. */
export interface TransferLog {
  txHash: string;
  logIndex: number;
  blockNumber: number;
  contract: string;
  from: string;
  to: string;
  value: bigint;
}

/**
 * One network's local chain (CONTRACT §14): an anvil node with the network's chain id, its USDC at
 * the address invoices name, and the calls svc makes to it. What happens to the transfers it sees is
 * the server's (src/server/chains/).
 */
export class LocalChain {
  private unwatch: (() => void) | undefined;
  private closeSocket: (() => Promise<void>) | undefined;

  private constructor(
    readonly network: ChainInfo,
    readonly node: AnvilNode,
    readonly rpc: NodeRpc,
  ) {}

  /** Starts the node; the token is deployed by `genesis()` or comes with `load()`. */
  static async start(binary: string, network: ChainInfo): Promise<LocalChain> {
    const node = await startAnvilNode(binary, network.networkId);
    return new LocalChain(network, node, new NodeRpc(node.url));
  }

  get networkId(): number {
    return this.network.networkId;
  }

  /**
   * The genesis state svc adds to anvil's: the network's USDC contract at its address (the runtime
   * code of src/chains/token/TestUSDC.sol, set with anvil_setCode: nothing is mined) and 1,000,000
   * USDC for each default account (anvil_setStorageAt, ./genesis.ts).
   */
  async genesis(): Promise<void> {
    const writes = this.network.tokens.flatMap((token) => [
      this.rpc.call('anvil_setCode', [token.contractAddress, TEST_USDC_RUNTIME]),
      ...genesisStorage().map(([slot, value]) => this.rpc.call('anvil_setStorageAt', [token.contractAddress, slot, value])),
    ]);
    await Promise.all(writes);
  }

  async blockNumber(): Promise<number> {
    return quantity(await this.rpc.call('eth_blockNumber'), 'eth_blockNumber');
  }

  /** Mines `blocks` empty blocks at once. */
  async mine(blocks: number): Promise<void> {
    if (blocks > 0) await this.rpc.call('anvil_mine', [numberToHex(blocks)]);
  }

  /** The whole chain (accounts, code, storage, blocks and transactions) as anvil serialises it. */
  async dump(): Promise<string> {
    const state = await this.rpc.call('anvil_dumpState');
    if (typeof state !== 'string' || !isHex(state)) throw new NodeUnreachable('anvil_dumpState: not a hex string');
    return state;
  }

  /** Back to the genesis state (anvil's, then svc's token and balances). */
  async reset(): Promise<void> {
    await this.rpc.call('anvil_reset');
    await this.genesis();
  }

  /** The chain `dump()` gave, in place of the current one. */
  async load(state: string): Promise<void> {
    if (!isHex(state)) throw new TypeError('a chain state is a hex string');
    await this.rpc.call('anvil_reset');
    await this.rpc.call('anvil_loadState', [state]);
  }

  /** The ERC-20 Transfer logs of blocks `from` to `to` (inclusive), of any contract, in chain order. */
  async transfers(from: number, to: number): Promise<TransferLog[]> {
    const logs = await this.rpc.call('eth_getLogs', [{ fromBlock: numberToHex(from), toBlock: numberToHex(to), topics: [TRANSFER_TOPIC] }]);
    if (!Array.isArray(logs)) throw new NodeUnreachable('eth_getLogs: not a list');
    return logs.map(decodeTransfer).filter((t): t is TransferLog => t !== null);
  }

  /**
   * Calls `onHead` with the new head's number each time a block is mined: anvil's `newHeads`
   * subscription over WebSocket, through viem. Once at a time; `stop()` ends it.
   */
  watchHeads(onHead: (blockNumber: number) => void, onError: (error: Error) => void): void {
    this.unwatch?.();
    // No reconnect and no keep-alive timer: the node is a child of this process, and a socket that
    // outlived it would hold the process open, retrying.
    const transport = webSocket(this.node.wsUrl, { reconnect: false, keepAlive: false, retryCount: 0 });
    const client = createPublicClient({ transport });
    this.unwatch = client.watchBlockNumber({ onBlockNumber: (n) => onHead(Number(n)), onError });
    this.closeSocket = async () => {
      const socket = await client.transport.getRpcClient();
      socket.close();
    };
  }

  /** Stops watching, closes the connections, ends the node. */
  async stop(): Promise<void> {
    this.unwatch?.();
    this.unwatch = undefined;
    await this.closeSocket?.().catch(() => {});
    this.rpc.close();
    await this.node.stop();
  }
}

/** A log as an ERC-20 Transfer, or null for another shape (ERC-721's Transfer has its value indexed). */
function decodeTransfer(log: unknown): TransferLog | null {
  if (!isRecord(log) || !Array.isArray(log.topics) || log.topics.length !== 3 || log.removed === true) return null;
  const [, from, to] = log.topics;
  const { data, address, transactionHash } = log;
  if (typeof from !== 'string' || typeof to !== 'string' || typeof data !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(data)) return null;
  if (typeof address !== 'string' || typeof transactionHash !== 'string') return null;
  return {
    txHash: transactionHash,
    logIndex: quantity(log.logIndex, 'logIndex'),
    blockNumber: quantity(log.blockNumber, 'blockNumber'),
    contract: address.toLowerCase(),
    from: `0x${from.slice(-40).toLowerCase()}`,
    to: `0x${to.slice(-40).toLowerCase()}`,
    value: BigInt(data),
  };
}
