import * as z from 'zod';
import { lazyRecord, once } from './lazy.js';

/**
 * The local chains (CONTRACT §14, extension): request bodies and answers. Each is built on first
 * read (./lazy.ts): the request schemas load with the first request that has a body, and the
 * answers are read only by the OpenAPI document and the response checker.
 */

const address = once(() => z.string().meta({ pattern: '^0x[0-9a-fA-F]{40}$' }));

const localChain = once(() =>
  z
    .object({
      networkId: z.number().int().meta({ description: 'The network’s id, which is also the node’s chain id.' }),
      name: z.string(),
      rpcUrl: z.url().meta({ description: '`{baseUrl}/__emulator/chains/{networkId}/rpc`: JSON-RPC, loopback only.' }),
      blockNumber: z.number().int().min(0).meta({ description: 'The chain’s latest block.' }),
      confirmations: z
        .number()
        .int()
        .min(1)
        .meta({ description: 'Blocks a payment’s block needs, its own included, before the payment is confirmed (1: confirmed in its own block).' }),
      tokens: z.array(z.object({ symbol: z.string(), contractAddress: address(), decimals: z.number().int() })),
      accounts: z
        .array(z.object({ address: address(), privateKey: z.string().meta({ pattern: '^0x[0-9a-f]{64}$' }) }))
        .meta({ description: 'anvil’s default accounts, funded: public keys to local money only.' }),
    })
    .meta({ id: 'LocalChain' }),
);

const rpcId = once(() => z.union([z.string(), z.number(), z.null()]));

/** One JSON-RPC 2.0 request; extra members pass to the node as they came. */
const jsonRpcCall = () =>
  z.looseObject({
    jsonrpc: z.literal('2.0'),
    method: z.string().min(1).max(256),
    params: z.unknown().optional(),
    id: rpcId().optional(),
  });

/** Thunks: REQUEST_SCHEMAS builds each on first use (./lazy.ts). */
export const CHAIN_REQUESTS = {
  MineChainRequest: () => z.object({ blocks: z.number().int().min(1).max(10_000).default(1).meta({ description: 'How many blocks (default 1).' }) }),
  /** A batch (an array of these) is taken too: the operation is `jsonRpc` (src/contract/operation.ts). */
  JsonRpcRequest: jsonRpcCall,
};

const jsonRpcAnswer = once(() =>
  z
    .looseObject({
      jsonrpc: z.literal('2.0'),
      id: rpcId().optional(),
      result: z.unknown().optional(),
      error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
    })
    .meta({ id: 'JsonRpcAnswer' }),
);

export const CHAIN_SCHEMAS = lazyRecord({
  LocalChain: localChain,
  ChainList: () => z.object({ data: z.array(localChain()) }).meta({ id: 'ChainList', description: 'In the order of CONTRACT §3; empty without `--chains`.' }),
  JsonRpcResponse: () =>
    z
      .union([jsonRpcAnswer(), z.array(jsonRpcAnswer())])
      .meta({ id: 'JsonRpcResponse', description: 'The node’s answer as it came: one response, or one per request of a batch.' }),
});
