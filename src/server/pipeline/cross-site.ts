import { refuseCrossSite, WRITE_METHODS } from '../http/cross-site.js';
import type { AppDeps } from '../route.js';
import type { Stage } from './compose.js';
import type { RoutedContext } from './context.js';

/**
 * Cross-site writes (CONTRACT §8): a write to the control plane or to a page that posts (checkout
 * panel, bind page) from another site is refused. Right after the lookup, since whether a write
 * needs the same origin depends on the route; an unknown route or a wrong method changed nothing.
 */
export function crossSite(deps: AppDeps): Stage<RoutedContext> {
  // The public base URL is known once the emulator listens, before its first request.
  let publicOrigin: string | undefined;
  return (ctx, next) => {
    const { route } = ctx;
    if ((route.control || route.sameOriginWrites) && WRITE_METHODS.has(route.method)) {
      publicOrigin ??= new URL(deps.baseUrl()).origin.toLowerCase();
      // A local chain's RPC lets browser wallets (extensions) through: they are how a page pays (CONTRACT §14).
      refuseCrossSite(ctx.req.headers, publicOrigin, route.jsonRpc === true);
    }
    return next();
  };
}
