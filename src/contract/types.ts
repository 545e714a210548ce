import type { CodeOfStatus, ErrorCode, ApiErrorBody } from './errors.js';
import type { SharedCodesOf } from './operation.js';
import type { OperationId, Operations } from './operations/index.js';
import type { RequestInputOf, RequestOf, RequestSchemaName } from './schemas/requests.js';
import type { ResponseBody, ResponseSchemaName } from './schemas/responses.js';

/**
 * Types derived from the operations: what a handler receives and answers, what a client sends and
 * gets back. Type-only: importing this module loads nothing.
 */

type Op<Id extends OperationId> = Operations[Id];

/** A JSON-RPC operation takes a batch (an array) as well as one request (`jsonRpc`, ./operation.ts). */
type OrBatch<Id extends OperationId, T> = Op<Id> extends { jsonRpc: true } ? T | T[] : T;
/** The body a handler receives (defaults applied); `undefined` when the operation takes none. */
export type BodyOf<Id extends OperationId> = Op<Id> extends { body: infer N extends RequestSchemaName } ? OrBatch<Id, RequestOf<N>> : undefined;
/** The body a client sends. */
export type BodyInputOf<Id extends OperationId> = Op<Id> extends { body: infer N extends RequestSchemaName } ? OrBatch<Id, RequestInputOf<N>> : undefined;
/** The parsed query a handler receives; `undefined` when the operation reads none. */
export type QueryOf<Id extends OperationId> = Op<Id> extends { query: infer N extends RequestSchemaName } ? RequestOf<N> : undefined;
/** The query a client sends. */
export type QueryInputOf<Id extends OperationId> = Op<Id> extends { query: infer N extends RequestSchemaName } ? RequestInputOf<N> : undefined;

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;
/** The path parameters, by the names the path template gives them (`{id}` → `{ id: string }`). */
export type ParamsOf<Id extends OperationId> = { [K in ParamNames<Op<Id>['path']>]: string };

type Responses<Id extends OperationId> = Op<Id>['responses'];
/** The statuses the handler answers with (errors and the idempotent replay are added by the server). */
export type HandlerStatusOf<Id extends OperationId> = keyof Responses<Id> & number;
type SchemaNameOf<R> = R extends ResponseSchemaName ? R : R extends { schema: infer N extends ResponseSchemaName } ? N : never;
/** Whether a response is a server-sent-events stream. */
export type IsStream<R> = R extends { stream: true } ? true : false;

/** The body of a response the handler answers with (`undefined` for streams and bodiless ones). */
export type ResponseOf<Id extends OperationId, S extends HandlerStatusOf<Id>> = [SchemaNameOf<Responses<Id>[S]>] extends [never]
  ? undefined
  : ResponseBody<SchemaNameOf<Responses<Id>[S]>>;

type SuccessStatus<Id extends OperationId> = Extract<HandlerStatusOf<Id>, 200 | 201 | 202 | 204>;
/** The body of a success (2xx); an idempotent replay has the same body. */
export type SuccessOf<Id extends OperationId> = ResponseOf<Id, SuccessStatus<Id>>;

/** Every error code the operation can answer. */
export type ErrorCodeOf<Id extends OperationId> = SharedCodesOf<Op<Id>> | (Op<Id> extends { errors: readonly (infer C extends ErrorCode)[] } ? C : never);
/** The codes the operation can answer with one status. */
export type ErrorCodeOfStatus<Id extends OperationId, S extends number> = Extract<ErrorCodeOf<Id>, CodeOfStatus<S>>;
/** The error body the operation can answer with. */
export type ErrorOf<Id extends OperationId> = ApiErrorBody<ErrorCodeOf<Id>>;

declare const jsonOf: unique symbol;
/**
 * JSON text of a `T` (the invoice splice, serialised without a parse/stringify round trip). Only a
 * presenter makes one; it is invariant in `T`, so a partner invoice's text is not a merchant one's.
 */
export type Json<T> = string & { readonly [jsonOf]: (value: T) => T };
