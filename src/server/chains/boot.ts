import { locateAnvil } from '../../chains/anvil-binary.js';
import { startChains, stopChains } from '../../chains/start-chains.js';
import type { AppDeps } from '../route.js';
import { attachChains } from './runtime.js';
import type { ChainsControl } from './types.js';

/** The local chains of a start (CONTRACT §14): nodes starting while the store opens, attached once the app exists. */
export interface ChainsBoot {
  /** The chains with their state and watchers; on failure the nodes are stopped. */
  attach(deps: AppDeps): Promise<ChainsControl>;
  /** The start failed elsewhere: the nodes go (none outlives a failed start). */
  abandon(): Promise<void>;
}

/**
 * Finds anvil (or throws `AnvilMissing`, one line naming the package, before anything started) and
 * starts a node per network at once, so that they come up while the database opens.
 */
export function bootChains(confirmations: number, env: NodeJS.ProcessEnv = process.env): ChainsBoot {
  const binary = locateAnvil(env);
  const starting = startChains(binary);
  // Observed by attach or abandon; never an unhandled rejection meanwhile.
  starting.catch(() => {});
  return {
    attach: async (deps) => {
      const chains = await starting;
      try {
        return await attachChains(chains, deps, confirmations);
      } catch (error) {
        await stopChains(chains);
        throw error;
      }
    },
    abandon: async () => {
      const chains = await starting.catch(() => []);
      await stopChains(chains);
    },
  };
}
