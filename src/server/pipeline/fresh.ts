import type { Stage } from './compose.js';
import type { RequestContext } from './context.js';

/**
 * CONTRACT §12, read your writes across replicas: before anything reads what this replica keeps in
 * memory (the clock, keys, faults, chaos), it takes in what the others acknowledged (../freshness.ts).
 * Nothing to do where this process is the only one. While the database is away the request goes on
 * as it is: whatever it reads from the store answers 503, and health says `degraded`.
 */
export const fresh: Stage<RequestContext> = (ctx, next) => {
  const synced = ctx.deps.sync();
  if (!synced) return next();
  return synced.then(next, (error: unknown) => {
    if (ctx.deps.db.condition(error) !== 'unavailable') throw error;
    return next();
  });
};
