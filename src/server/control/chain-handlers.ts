import { ApiError } from '../api-error.js';
import type { ChainsControl } from '../chains/types.js';
import type { Handlers } from '../handler.js';
import type { AppDeps } from '../route.js';

/** The running chains and the network a path names; 404 `chain_not_found` without them. */
function chainFor(deps: AppDeps, param: string): { chains: ChainsControl; networkId: number } {
  const chains = deps.runtime.chains;
  if (!chains)
    throw new ApiError(404, 'chain_not_found', 'No local chains run here: start the emulator with svc dev --chains (startEmulator({ chains: true })).');
  const networkId = /^[1-9][0-9]{0,9}$/.test(param) ? Number(param) : Number.NaN;
  if (!chains.networkIds().includes(networkId)) {
    throw new ApiError(404, 'chain_not_found', `No local chain has networkId ${param.slice(0, 20)}: they are ${chains.networkIds().join(', ')}.`);
  }
  return { chains, networkId };
}

/** CONTRACT §14: the local chains, loopback-only like the rest of the control plane. */
export const chainHandlers = {
  listChains: async (_input, deps) => ({ status: 200, body: { data: deps.runtime.chains ? await deps.runtime.chains.list() : [] } }),
  mineChain: async (input, deps) => {
    const { chains, networkId } = chainFor(deps, input.params.networkId);
    return { status: 200, body: await chains.mine(networkId, input.body.blocks) };
  },
  chainRpc: async (input, deps) => {
    const { chains, networkId } = chainFor(deps, input.params.networkId);
    const answer = await chains.forward(networkId, JSON.stringify(input.body));
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      throw new ApiError(502, 'chain_unavailable', `The local chain ${networkId}'s node answered ${answer.status} with a body that is not JSON.`);
    }
    if (!isJsonRpcAnswer(body))
      throw new ApiError(502, 'chain_unavailable', `The local chain ${networkId}'s node answered ${answer.status} without a JSON-RPC response.`);
    return { status: 200, body };
  },
} satisfies Handlers<'listChains' | 'mineChain' | 'chainRpc'>;

type Answer = { jsonrpc: '2.0'; [key: string]: unknown };

const isAnswer = (value: unknown): value is Answer =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && 'jsonrpc' in value && value.jsonrpc === '2.0';

/** A JSON-RPC response, or a batch's list of them: what the node answers, passed on. */
function isJsonRpcAnswer(value: unknown): value is Answer | Answer[] {
  return isAnswer(value) || (Array.isArray(value) && value.every(isAnswer));
}
