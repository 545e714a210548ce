import { LocalChain } from './local-chain.js';
import { LOCAL_NETWORKS } from './networks.js';

/**
 * Starts one node per local network, in parallel (CONTRACT §14). When one fails, the others are
 * stopped before the error is passed on: a failed start leaves no process behind.
 */
export async function startChains(binary: string): Promise<LocalChain[]> {
  const started = await Promise.allSettled(LOCAL_NETWORKS.map((network) => LocalChain.start(binary, network)));
  const chains = started.filter((s): s is PromiseFulfilledResult<LocalChain> => s.status === 'fulfilled').map((s) => s.value);
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await stopChains(chains);
    throw failed.reason;
  }
  return chains;
}

/** Stops every node, whatever each one's stop does. */
export async function stopChains(chains: readonly LocalChain[]): Promise<void> {
  await Promise.allSettled(chains.map((chain) => chain.stop()));
}
