import type { EmulatorConfig } from '../../config/defaults.js';
import { chainsFor, type ChainInfo } from '../../domain/chains.js';
import type { MerchantRow } from '../../store/repos/merchants.js';
import { ApiError } from '../api-error.js';
import { parseNetworkIds } from '../../store/json-columns.js';

/** Chains a merchant may be paid on: the environment's enabled chains, narrowed by the merchant's own. */
export function merchantChains(config: EmulatorConfig, merchant: MerchantRow): ChainInfo[] {
  const env = merchant.environment;
  const allowed = config.chains[env];
  let chains = chainsFor(env).filter((c) => allowed === 'all' || allowed.includes(c.networkId));
  if (merchant.network_ids) {
    const own = parseNetworkIds(merchant.network_ids);
    chains = chains.filter((c) => own.includes(c.networkId));
  }
  return chains;
}

export interface RouteChoice {
  chains: ChainInfo[];
  /** Set when the token is locked: every address then lists only that token. */
  token?: string;
}

/**
 * Applies an invoice's route lock (CONTRACT §3): a networkId keeps that chain, a token keeps the
 * chains that carry it. Anything the merchant cannot be paid with is 400 route_not_available.
 */
export function chooseRoute(chains: ChainInfo[], networkId?: number, token?: string): RouteChoice {
  let chosen = chains;
  if (networkId !== undefined) {
    chosen = chosen.filter((c) => c.networkId === networkId);
    if (!chosen.length) {
      throw new ApiError(
        400,
        'route_not_available',
        `networkId ${networkId} is not enabled for this merchant in this environment (enabled: ${chains.map((c) => c.networkId).join(', ') || 'none'}).`,
        'networkId',
      );
    }
  }
  if (token !== undefined) {
    chosen = chosen.filter((c) => c.tokens.some((t) => t.symbol === token));
    if (!chosen.length) {
      const offered = [
        ...new Set((networkId !== undefined ? chains.filter((c) => c.networkId === networkId) : chains).flatMap((c) => c.tokens.map((t) => t.symbol))),
      ];
      throw new ApiError(
        400,
        'route_not_available',
        `token ${token} is not available${networkId !== undefined ? ` on networkId ${networkId}` : ''} for this merchant (available: ${offered.join(', ') || 'none'}).`,
        'token',
      );
    }
  }
  if (!chosen.length) throw new ApiError(400, 'route_not_available', 'This merchant has no chain enabled in this environment.');
  return token === undefined ? { chains: chosen } : { chains: chosen, token };
}
