import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Repos } from '../../store/db.js';
import type { ActiveFault } from '../faults/table.js';
import type { JournalRecord } from '../journal/journal.js';
import type { Seen } from '../response-observer.js';
import type { AppDeps, HandlerInputOf, Principal, RouteDef } from '../route.js';

export type { HandlerInputOf } from '../route.js';

/** An idempotent create being served (CONTRACT §2): the key and the endpoint it is scoped to. */
export interface IdempotentRequest {
  key: string;
  endpoint: string;
  /** Set once the body is known and no earlier answer exists: remembers a successful answer, in the create's transaction. */
  remember: ((tx: Repos, status: number, text: string) => Promise<void>) | undefined;
}

/**
 * One request as the stages see it. Every field exists from the start (a stable object shape for
 * the hot path); the stages fill them in, in order.
 */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly deps: AppDeps;
  readonly requestId: string;
  /** When the request arrived, on the monotonic clock of clock/monotonic.ts. */
  readonly started: number;
  readonly method: string;
  readonly path: string;
  /** The query string, without its `?`. */
  readonly search: string;
  /** What the response checker learns (test runs only). */
  seen: Seen | undefined;
  /** The request journal's entry (API requests only, when the journal is on). */
  record: JournalRecord | undefined;
  route: RouteDef | undefined;
  params: Record<string, string>;
  principal: Principal | null;
  /** An `after_commit` fault waiting for the operation's answer. */
  fault: ActiveFault | undefined;
  idempotent: IdempotentRequest | undefined;
  /** The body as a JSON object (or a JSON-RPC batch of them), before validation; undefined when the route takes none. */
  body: Record<string, unknown> | Record<string, unknown>[] | undefined;
  input: HandlerInputOf | undefined;
}

/** The context once the route is known (the stages after routing). */
export type RoutedContext = RequestContext & { route: RouteDef };

/** The context once the handler's input is built (the stages after the query is parsed). */
export type InputContext = RoutedContext & { input: HandlerInputOf };

export function newContext(req: IncomingMessage, res: ServerResponse, deps: AppDeps, requestId: string, started: number): RequestContext {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  return {
    req,
    res,
    deps,
    requestId,
    started,
    method: req.method ?? 'GET',
    path: queryAt === -1 ? url : url.slice(0, queryAt),
    search: queryAt === -1 ? '' : url.slice(queryAt + 1),
    seen: undefined,
    record: undefined,
    route: undefined,
    params: {},
    principal: null,
    fault: undefined,
    idempotent: undefined,
    body: undefined,
    input: undefined,
  };
}
