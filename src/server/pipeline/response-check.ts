import type { Stage } from './compose.js';
import type { RequestContext } from './context.js';
import { type ResponseObserver, watchResponse } from '../response-observer.js';

/**
 * The response check (the integration suite's OpenAPI observer, when installed): it watches what is
 * sent, so it wraps every stage, refused hosts and unknown routes included; routing names the
 * operation. An emulator built without an observer skips it.
 */
export function responseCheck(observe: ResponseObserver): Stage<RequestContext> {
  return (ctx, next) => {
    ctx.seen = watchResponse(ctx.res, ctx.method, ctx.path, observe);
    return next();
  };
}
