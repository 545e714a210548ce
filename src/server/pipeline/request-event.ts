import type { Stage } from './compose.js';
import type { RequestContext } from './context.js';
import { monotonicMs } from '../../clock/monotonic.js';

/** A `request` event once the answer is sent, for whoever listens (`svc dev`'s log); nothing when no one does. */
export const requestEvent: Stage<RequestContext> = (ctx, next) => {
  const { deps, res } = ctx;
  if (deps.observed()) {
    res.once('finish', () => {
      deps.emit({
        type: 'request',
        requestId: ctx.requestId,
        method: ctx.method,
        path: ctx.path,
        status: res.statusCode,
        durationMs: monotonicMs() - ctx.started,
      });
    });
  }
  return next();
};
