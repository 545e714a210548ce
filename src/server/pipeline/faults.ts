import { dropConnection, sendFault } from '../faults/answer.js';
import type { ActiveFault } from '../faults/table.js';
import type { Stage } from './compose.js';
import type { RequestContext, RoutedContext } from './context.js';
import { API_PATH_PREFIX } from '../../contract/operation.js';

/**
 * API faults (CONTRACT §9). After the key, so that a fault can match the environment; never on the
 * control plane, which must stay reachable to clear one. A `before` fault answers (or drops, or
 * delays) instead of the operation; an `after_commit` one waits in the context for the
 * operation's answer (`answer.ts`).
 */
export const faults: Stage<RoutedContext> = (ctx, next) => {
  const { deps } = ctx;
  if (deps.faults.size === 0 || !ctx.path.startsWith(API_PATH_PREFIX)) return next();
  const fault = deps.faults.match(ctx.route.method, ctx.path, ctx.principal?.environment);
  if (fault?.when !== 'before') {
    ctx.fault = fault;
    return next();
  }
  const fired = deps.faults.fire(fault);
  const act = (ok: boolean) => (ok ? actFirst(ctx, fault, false).then((goOn) => (goOn ? next() : undefined)) : next());
  // A promise only for a fault whose `times` is counted in the shared value (faults/table.ts).
  return typeof fired === 'boolean' ? act(fired) : fired.then(act);
};

/**
 * Marks the answer as faulted and acts: sends the fault's error, drops the socket, or waits its
 * delay. True when the request goes on after a delay; false when the fault answered (or dropped).
 */
export async function actFirst(ctx: RequestContext, fault: ActiveFault, committed: boolean): Promise<boolean> {
  const { res, record, deps } = ctx;
  res.setHeader('Svc-Fault', fault.id);
  if (record) record.fault = fault.id;
  if ('drop' in fault.action) {
    dropConnection(res);
    return false;
  }
  if ('status' in fault.action) {
    const body = sendFault(ctx.req, res, fault.id, fault.action, committed);
    if (record) record.responseBody = body;
    return false;
  }
  if (!(await deps.faults.delay(fault.action.delayMs))) {
    dropConnection(res);
    return false;
  }
  return true;
}
