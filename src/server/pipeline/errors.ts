import { ApiError } from '../api-error.js';
import { errorMessage } from '../../domain/caught.js';
import { sendError } from '../http/respond.js';
import { TempFolderError } from '../../store/temp-folder.js';
import { keptText } from '../journal/journal.js';
import type { Next, Stage } from './compose.js';
import type { RequestContext } from './context.js';

/**
 * Whatever a stage below throws is answered in the contract's error shape (CONTRACT §2): an
 * `ApiError` as itself, anything else as a 500 `internal_error`, reported with the request id and
 * its stack as an `error` event (never in the body).
 *
 * Always a microtask later, even for a check that throws at once: by then Node's parser has seen the
 * end of a request without a body (`req.complete`), so `sendError` keeps the connection alive
 * instead of closing it as for a body left unread (test/integration/request-input.test.ts, HEAD).
 */
export const renderErrors: Stage<RequestContext> = (ctx, next) => settled(next).catch((error: unknown) => answerError(ctx, error));

/** `next()` as a promise: an async function turns a synchronous throw into a rejection. */
async function settled(next: Next): Promise<void> {
  return next();
}

function answerError(ctx: RequestContext, error: unknown): void {
  const condition = error instanceof ApiError ? null : ctx.deps.db.condition(error);
  if (condition === 'unavailable') {
    // Not a bug in svc: the shared database is away (CONTRACT §12), answered 503; no stack.
    ctx.deps.emit({ type: 'warning', message: `${ctx.req.method} ${ctx.path}: the database cannot be reached (${errorMessage(error)}); answered 503` });
  } else if (error instanceof TempFolderError) {
    // Not a bug in svc either: the machine's temporary folder (answered 507, naming it); no stack.
    ctx.deps.emit({ type: 'warning', message: `${ctx.req.method} ${ctx.path}: ${error.message}; answered 507` });
  } else if (!(error instanceof ApiError)) {
    ctx.deps.emit({
      type: 'error',
      requestId: ctx.requestId,
      message: `${ctx.req.method} ${ctx.path} failed: ${error instanceof Error ? error.message : String(error)}`,
      stack: error instanceof Error ? error.stack : undefined,
    });
  }
  const body = sendError(ctx.req, ctx.res, error, condition);
  if (ctx.record && body !== undefined) ctx.record.responseBody = keptText(body, ctx.record);
}
