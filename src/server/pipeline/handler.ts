import { sendResult } from '../http/respond.js';
import type { RouteResult } from '../route.js';
import { answer } from './answer.js';
import type { Stage } from './compose.js';
import type { InputContext } from './context.js';

/**
 * The route's handler, and its answer. An idempotent create runs in a transaction with the memory
 * of its answer (`idempotency.ts`), so it must be synchronous: a crash keeps both or neither.
 */
export const handler: Stage<InputContext> = async (ctx) => {
  const { route, deps, input, idempotent } = ctx;
  const remember = idempotent?.remember;
  if (remember) {
    const done = await deps.store.batch(() => {
      const result = route.handle(input, deps);
      if (result instanceof Promise) throw new Error(`idempotent route ${route.path} must be synchronous`);
      const text = result.json ?? JSON.stringify(result.body);
      remember(result.status, text);
      return { result, text };
    });
    return answer(ctx, () => sendResult(ctx.res, done.result, done.text), done.result.status);
  }
  const result: RouteResult = await route.handle(input, deps);
  return answer(ctx, () => sendResult(ctx.res, result), result.status);
};
