import type { IncomingMessage } from 'node:http';
import type { JournalRecord } from '../journal/journal.js';
import { maskAuthorization } from '../journal/mask.js';
import type { Stage } from './compose.js';
import type { RequestContext } from './context.js';
import { API_PATH_PREFIX } from '../../contract/operation.js';
import { monotonicMs } from '../../clock/monotonic.js';

/**
 * The request journal (CONTRACT §9) keeps the API's requests only (/v1/…, not the control plane),
 * refused ones included: its entry is opened before any check, and the later stages fill it in
 * (principal, bodies, fault, replay). It is added once the answer is sent, or the socket closed.
 */
export const journal: Stage<RequestContext> = (ctx, next) => {
  const { deps, res } = ctx;
  if (deps.journal.capacity > 0 && ctx.path.startsWith(API_PATH_PREFIX)) {
    const record = journalRecord(ctx.req, ctx, deps.clock.now());
    ctx.record = record;
    const done = () => {
      if (record.status === null && res.headersSent && !res.destroyed) record.status = res.statusCode;
      record.durationMs = monotonicMs() - ctx.started;
      deps.journal.add(record);
    };
    res.once('finish', () => {
      record.status = res.statusCode;
      done();
    });
    res.once('close', () => {
      if (!res.writableFinished) done();
    });
  }
  return next();
};

/** A journal entry for a request just arrived; the rest is filled in as the request is served. */
function journalRecord(req: IncomingMessage, ctx: RequestContext, now: number): JournalRecord {
  const idempotencyKey = req.headers['idempotency-key'];
  return {
    id: ctx.requestId,
    at: now,
    method: ctx.method,
    path: ctx.path,
    query: ctx.search,
    status: null,
    durationMs: 0,
    principal: null,
    key: maskAuthorization(req.headers.authorization),
    idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : null,
    replayed: false,
    requestBody: null,
    responseBody: null,
    truncated: false,
    fault: null,
    // The dashboard marks its own calls, so that the user's can be told apart (issue 24).
    fromDashboard: req.headers['svc-client'] === 'dashboard',
  };
}
