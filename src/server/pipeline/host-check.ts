import { ApiError } from '../api-error.js';
import { printable } from '../http/cross-site.js';
import { createHostCheck } from '../http/host-check.js';
import { portHint } from '../http/port-hint.js';
import type { AppDeps } from '../route.js';
import type { Stage } from './compose.js';
import type { RequestContext } from './context.js';

/**
 * Allowed hosts (CONTRACT §8): DNS rebinding stops here, before the route lookup, so that a foreign
 * page learns nothing, not even which paths exist.
 */
export function hostCheck(deps: AppDeps): Stage<RequestContext> {
  // Built on the first request: the emulator's own hosts are known once it listens.
  let allowed: ((host: string | undefined) => boolean) | undefined;
  // Published on another port than the one in its links: said once (../http/port-hint.ts).
  const hint = portHint({ host: deps.config.host, publicUrl: deps.config.publicUrl, baseUrl: deps.baseUrl });
  return (ctx, next) => {
    allowed ??= createHostCheck({ allowedHosts: deps.config.allowedHosts, ownHosts: deps.ownHosts() });
    const host = ctx.req.headers.host;
    // No Host at all is allowed (createHostCheck), so a refused one is always a string.
    if (!allowed(host)) throw hostNotAllowed(host ?? '');
    const warning = hint(host);
    if (warning) deps.emit({ type: 'warning', message: warning });
    return next();
  };
}

function hostNotAllowed(host: string): ApiError {
  const shown = printable(host);
  return new ApiError(
    403,
    'host_not_allowed',
    `The Host "${shown}" is not one this emulator answers to (DNS rebinding protection). If you reach it by that name, allow it: ` +
      `allowedHosts in the config file, svc dev --allowed-host ${shown.replace(/:\d+$/, '')}, or startEmulator({ allowedHosts }).`,
  );
}
