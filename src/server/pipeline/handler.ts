import { joinTransaction } from '../../store/db.js';
import { sendResult } from '../http/respond.js';
import type { RouteResult } from '../route.js';
import { answer } from './answer.js';
import type { Stage } from './compose.js';
import type { InputContext } from './context.js';

/**
 * The route's handler, and its answer. An idempotent create runs in one transaction with the
 * memory of its answer (`idempotency.ts`): a crash keeps both or neither. Its handler sees that
 * transaction as `deps.db` (joinTransaction): every read and write it makes, and any transaction
 * it opens, are the create's. It must await nothing but the store (src/store/db.ts).
 */
export const handler: Stage<InputContext> = async (ctx) => {
  const { route, deps, input, idempotent } = ctx;
  const remember = idempotent?.remember;
  if (remember) {
    const done = await deps.db.transaction(async (tx) => {
      const result = await route.handle(input, { ...deps, db: joinTransaction(tx, deps.db) });
      const text = result.json ?? JSON.stringify(result.body);
      await remember(tx, result.status, text);
      return { result, text };
    });
    return answer(ctx, () => sendResult(ctx.res, done.result, done.text), done.result.status);
  }
  const result: RouteResult = await route.handle(input, deps);
  return answer(ctx, () => sendResult(ctx.res, result), result.status);
};
