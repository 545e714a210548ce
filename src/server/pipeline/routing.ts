import { ApiError } from '../api-error.js';
import type { RouteDef } from '../route.js';
import type { Router } from '../router.js';
import type { Stage } from './compose.js';
import type { RequestContext, RoutedContext } from './context.js';

/**
 * The route lookup (CONTRACT §2): 404 `not_found` for an unknown path, 405 `method_not_allowed`
 * with `Allow` for a wrong method. It ends the stages that run for every request and hands a routed
 * context to the route's stages (`routed`).
 */
export function routing(router: Router<RouteDef>, routed: (ctx: RoutedContext) => void | Promise<void>): Stage<RequestContext> {
  return (ctx) => {
    const found = router.lookup(ctx.method, ctx.path);
    if (!found) throw new ApiError(404, 'not_found', `No route for ${ctx.req.method} ${ctx.path}.`);
    if ('allowed' in found) {
      throw new ApiError(405, 'method_not_allowed', `${ctx.req.method} is not allowed on ${ctx.path}; use ${found.allowed.join(' or ')}.`, undefined, {
        Allow: found.allowed.join(', '),
      });
    }
    const { route, params } = found.match;
    if (ctx.seen) ctx.seen.operationId = route.operationId;
    ctx.params = params;
    return routed(Object.assign(ctx, { route }));
  };
}
