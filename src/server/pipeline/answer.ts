import { keptText } from '../journal/journal.js';
import type { RequestContext } from './context.js';
import { actFirst } from './faults.js';

/**
 * Sends the operation's answer (`send` writes it and returns the body), or, when an `after_commit`
 * fault matches a success, the fault's: the operation ran and committed either way (the "did my
 * create happen?" case). A delay fault delays the real answer.
 */
export async function answer(ctx: RequestContext, send: () => string | undefined, status: number): Promise<void> {
  const { fault, deps } = ctx;
  if (fault && status >= 200 && status < 300 && (await deps.faults.fire(fault))) {
    if (!(await actFirst(ctx, fault, true))) return;
  }
  const body = send();
  if (ctx.record && body !== undefined) ctx.record.responseBody = keptText(body, ctx.record);
}
