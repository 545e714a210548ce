import { InFlight } from '../idempotency.js';
import type { ResponseObserver } from '../response-observer.js';
import type { AppDeps, RouteDef } from '../route.js';
import { Router } from '../router.js';
import { auth } from './auth.js';
import { bodyLimits } from './body.js';
import { compose } from './compose.js';
import type { InputContext, RequestContext, RoutedContext } from './context.js';
import { controlAccess } from './control-access.js';
import { crossSite } from './cross-site.js';
import { renderErrors } from './errors.js';
import { faults } from './faults.js';
import { fresh } from './fresh.js';
import { handler } from './handler.js';
import { hostCheck } from './host-check.js';
import { idempotencyLock, idempotentReplay } from './idempotency.js';
import { journal } from './journal.js';
import { requestEvent } from './request-event.js';
import { responseCheck } from './response-check.js';
import { routing } from './routing.js';
import { query, validation } from './validation.js';

export type { RequestContext } from './context.js';
export { newContext } from './context.js';

/**
 * How the emulator serves a request, in order: CONTRACT §8 (a safe local server) first, then §2
 * (HTTP conventions). The first check that fails answers in the error shape and nothing after it
 * runs; none of the checks writes anything. Each stage is one file of this folder; the nesting is
 * where the context grows (a route, then the handler's input).
 */
export function createPipeline(
  deps: AppDeps,
  routes: readonly RouteDef[],
  observe: ResponseObserver | undefined,
): (ctx: RequestContext) => void | Promise<void> {
  const router = new Router<RouteDef>();
  for (const route of routes) router.add(route.method, route.path, route);
  const inFlight = new InFlight();

  return compose<RequestContext>([
    requestEvent, //              the `request` event once answered (svc dev's log)
    ...(observe ? [responseCheck(observe)] : []), // the OpenAPI response check (test runs)
    journal, //                   §9 the request journal sees every API request, refused ones too
    renderErrors, //              §2 whatever is thrown below: the error shape, 500 without a stack
    hostCheck(deps), //           §8 allowed hosts: 403 host_not_allowed (before any path is revealed)
    fresh, //                     §12 what other replicas acknowledged is in force here too
    routing(
      router, //                  §2 404 not_found, 405 method_not_allowed
      compose<RoutedContext>([
        crossSite(deps), //       §8 cross-site writes: 403 cross_site_request
        controlAccess, //         §7 the control plane: loopback or the control token
        auth, //                  §2 401 unauthorized, 403 forbidden_key_type, test_mode_only
        faults, //                §9 API faults: `before` answers here, `after_commit` at the answer
        idempotencyLock(inFlight), // §2 idempotency_key_required/invalid, 409 idempotency_key_in_progress
        bodyLimits, //            §2/§8 415, 413 (1 MiB, 10,000 values), invalid_json, environment, fee fields
        query(
          compose<InputContext>([
            idempotentReplay, //  §2 the first answer again, or 422 idempotency_key_reused
            validation, //        §2 400 validation_failed with `param`; `Warning` for unknown fields
            handler, //           the operation, and its answer (through an `after_commit` fault)
          ]),
        ),
      ]),
    ),
  ]);
}
