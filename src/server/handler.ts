import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { OperationSpec } from '../contract/operation.js';
import { OPERATIONS, type OperationId, type Operations, operationIds } from '../contract/operations/index.js';
import type { BodyOf, HandlerStatusOf, IsStream, Json, ParamsOf, QueryOf, ResponseOf } from '../contract/types.js';
import type { AppDeps, Principal, RouteDef } from './route.js';
import { INVOICE_BODIES, isZodFreeBody } from './validation/invoice-bodies.js';
import { schemas } from './validation/schemas.js';

/**
 * Handlers are paired with the contract's operations here. A handler's input (params, query, body,
 * principal) and its reply (status and body) are the operation's types, so a handler that answers a
 * shape or a status its operation does not declare is a compile error; the integration suite's
 * response checker holds the same at run time against the OpenAPI document.
 */
export interface HandlerInput<Id extends OperationId> {
  params: ParamsOf<Id>;
  query: QueryOf<Id>;
  body: BodyOf<Id>;
  headers: IncomingHttpHeaders;
  requestId: string;
  remoteAddress: string | undefined;
  principal: Operations[Id]['auth'] extends 'none' ? undefined : Principal;
}

type ReplyBody<Id extends OperationId, S extends HandlerStatusOf<Id>> =
  IsStream<Operations[Id]['responses'][S]> extends true
    ? { stream: (res: ServerResponse) => void }
    : ResponseOf<Id, S> extends undefined
      ? { body?: undefined }
      : { body: ResponseOf<Id, S> } | { json: Json<ResponseOf<Id, S>> };

/** What a handler answers: one of its operation's statuses, with that status's body. */
export type Reply<Id extends OperationId> = {
  [S in HandlerStatusOf<Id>]: { status: S; headers?: Record<string, string> } & ReplyBody<Id, S>;
}[HandlerStatusOf<Id>];

export type Handler<Id extends OperationId> = (input: HandlerInput<Id>, deps: AppDeps) => Reply<Id> | Promise<Reply<Id>>;

/** Handlers for some operations (one file's worth); `satisfies` it to type each handler from its key. */
export type Handlers<Ids extends OperationId> = { [Id in Ids]: Handler<Id> };

const routerPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * The route table, from the operations and a handler for each (the type demands every one). Built
 * once per emulator; each request schema is built when a request first needs it.
 */
export function operationRoutes(handlers: Handlers<OperationId>): RouteDef[] {
  return operationIds().map((id) => {
    const op: OperationSpec = OPERATIONS[id];
    const bodyName = op.body;
    const queryName = op.query;
    let optionalBody: boolean | undefined;
    // Every route object has the same properties in the same order, so the request path's property
    // reads stay monomorphic (bench #1, #2). The schemas are read when a request first needs them:
    // loading zod and building them all up front took ~50 ms of start-up (bench #12, #13;
    // ./validation/schemas.ts, ../contract/schemas/lazy.ts). The invoice creates need no zod.
    const route = {
      operationId: id,
      method: op.method,
      path: routerPath(op.path),
      control: op.control === true,
      sameOriginWrites: false,
      testOnly: op.testOnly === true,
      validated: (bodyName !== undefined && !isZodFreeBody(bodyName)) || queryName !== undefined,
      get body() {
        if (!bodyName) return undefined;
        return isZodFreeBody(bodyName) ? INVOICE_BODIES[bodyName] : schemas().REQUEST_SCHEMAS[bodyName];
      },
      /**
       * A body whose schema accepts `{}` may be left out (it is `{}`), whatever the method: the
       * OpenAPI document marks exactly those bodies optional (src/contract/openapi/build.ts).
       */
      get optionalBody(): boolean {
        optionalBody ??= this.body?.safeParse({}).success === true;
        return optionalBody;
      },
      get query() {
        return queryName ? schemas().REQUEST_SCHEMAS[queryName] : undefined;
      },
      idempotent: op.idempotency,
      rejectFeeFields: op.rejectFeeFields === true,
      jsonRpc: op.jsonRpc === true,
      auth: op.auth,
      handle: handlers[id],
    };
    return route;
  });
}
