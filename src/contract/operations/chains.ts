import { defineOperations } from '../operation.js';

const control = { tag: 'Emulator control plane', control: true, extension: true, auth: 'none' } as const;

/**
 * CONTRACT §14: the local chains of `svc dev --chains`, loopback-only like the rest of the control
 * plane. Without `--chains` the list is empty and every chain is `chain_not_found`.
 */
export const chainOperations = defineOperations({
  listChains: {
    ...control,
    method: 'GET',
    path: '/__emulator/chains',
    summary: 'The local chains (`svc dev --chains`): each network with its RPC URL, head, confirmations, token and funded accounts',
    description:
      'One anvil node per EVM test network, with its chain id. The accounts are anvil’s ten default ones (10,000 ETH and 1,000,000 USDC each); their private keys are public, for local chains only. Empty without `--chains`.',
    responses: { 200: 'ChainList' },
  },
  mineChain: {
    ...control,
    method: 'POST',
    path: '/__emulator/chains/{networkId}/mine',
    summary: 'Mine blocks on a local chain, then credit and confirm what they make due before answering',
    body: 'MineChainRequest',
    responses: { 200: 'LocalChain' },
    errors: ['chain_not_found', 'chain_unavailable'],
  },
  chainRpc: {
    ...control,
    method: 'POST',
    path: '/__emulator/chains/{networkId}/rpc',
    summary: 'JSON-RPC to a local chain’s node: the `rpcUrl` wallets, viem and ethers use',
    description:
      'A JSON-RPC 2.0 request, or a batch (an array of them), passed to the network’s anvil node as it came; its answer passed back as it came (JSON-RPC errors included, in a 200). anvil’s own methods (`anvil_*`, `evm_*`) pass too. Browser wallets (an extension’s origin) are let through the cross-site check; web pages are not.',
    body: 'JsonRpcRequest',
    jsonRpc: true,
    responses: { 200: 'JsonRpcResponse' },
    errors: ['chain_not_found', 'chain_unavailable'],
  },
});
