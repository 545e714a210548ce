/**
 * A typed client of the API for users' tests (`svc-emulator/client`, and `emulator.client` of an
 * in-process emulator): one method per operation of the contract, named by its operation id, typed
 * from it (the body it takes, the success it answers, and every error code it can answer as a union
 * that `switch (result.error.code)` narrows). Methods never throw for an answer of the API: a
 * refusal is `{ ok: false, status, error }`; only an unreachable service rejects.
 *
 * Loads no zod: the operations (src/contract/operations) are plain data, the types are erased.
 */
import type { ErrorCode } from '../contract/errors.js';
import { OPERATIONS, type OperationId, type Operations } from '../contract/operations/index.js';
import type { BodyInputOf, ErrorCodeOf, ParamsOf, QueryInputOf, SuccessOf } from '../contract/types.js';
import { ApiRefusedError } from './errors.js';
import { type FetchLike, fetchTransport } from './fetch-send.js';
import { send } from './http.js';

/** One error the API answers with: `code` narrows the union. */
export type ClientError<C extends ErrorCode> = C extends ErrorCode ? { code: C; message: string; param?: string } : never;

/** What a call answers: the success, typed, or the contract's error, with the operation's codes. */
export type ClientResult<Id extends OperationId> =
  | { ok: true; status: number; data: SuccessOf<Id>; requestId: string | null; replayed: boolean }
  | { ok: false; status: number; error: ClientError<ErrorCodeOf<Id>>; requestId: string | null };

type Streams = {
  [Id in OperationId]: Operations[Id]['responses'] extends Record<number, infer R> ? (R extends { stream: true } ? Id : never) : never;
}[OperationId];
/** The operations the client offers: all but the event streams and file downloads. */
export type ClientOperationId = Exclude<OperationId, Streams>;

type Idempotent<Id extends OperationId> = Operations[Id] extends { idempotency: infer I } ? (I extends { optional: true } ? 'optional' : 'required') : 'none';
type ParamsPart<Id extends OperationId> = keyof ParamsOf<Id> extends never ? { params?: undefined } : { params: ParamsOf<Id> };
type BodyPart<Id extends OperationId> = BodyInputOf<Id> extends undefined ? { body?: undefined } : { body: BodyInputOf<Id> };
type QueryPart<Id extends OperationId> = QueryInputOf<Id> extends undefined ? { query?: undefined } : { query?: QueryInputOf<Id> };
type KeyPart<Id extends OperationId> = Idempotent<Id> extends 'required' ? { idempotencyKey: string } : { idempotencyKey?: string };

/** A call's input: path parameters, body, query and `Idempotency-Key` as the operation takes them; `key` overrides the client's. */
export type ClientInput<Id extends OperationId> = ParamsPart<Id> & BodyPart<Id> & QueryPart<Id> & KeyPart<Id> & { key?: string };

type IsOptional<T> = Partial<T> extends T ? true : false;
type Method<Id extends OperationId> =
  IsOptional<ClientInput<Id>> extends true ? (input?: ClientInput<Id>) => Promise<ClientResult<Id>> : (input: ClientInput<Id>) => Promise<ClientResult<Id>>;

/** One method per operation, named by its operation id (`createInvoice`, `getPartnerInvoice`, …). */
export type Client = { [Id in ClientOperationId]: Method<Id> } & { readonly baseUrl: string };

export interface ClientOptions {
  /** The service: an emulator's `url`, or a deployment's base URL. */
  baseUrl: string;
  /** Sent to partner endpoints (`pt_test_…` / `pt_live_…`). */
  partnerKey?: string;
  /** Sent to merchant endpoints (`test_…` / `live_…`); test helpers take it before the partner key. */
  merchantKey?: string;
  /** Per call, in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** Sent with every call, e.g. the dashboard's `Svc-Client: dashboard` (which the request journal marks). */
  headers?: Record<string, string>;
  /**
   * Send with this `fetch` instead of node:http. Where there is no Node (a browser: the emulator's
   * dashboard loads this module), the global `fetch` is used without being asked.
   */
  fetch?: FetchLike;
}

/** Whether node:http is there to send with (Node, or a runtime that offers it as Node does). */
const onNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/**
 * An operation's path with its parameters filled in (`/v1/invoices/{id}` → `/v1/invoices/3f…`): for
 * what the client does not call itself, the event streams (an `EventSource` takes a URL).
 */
export function operationPath(id: OperationId, params: Record<string, string> = {}): string {
  return OPERATIONS[id].path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** A client for one base URL and one environment's keys. */
export function createClient(options: ClientOptions): Client {
  const client: Record<string, unknown> = { baseUrl: options.baseUrl };
  const transport = options.fetch || !onNode ? fetchTransport(options.fetch ?? globalThis.fetch) : send;
  for (const [id, op] of Object.entries(OPERATIONS) as [OperationId, Operations[OperationId]][]) {
    if (Object.values(op.responses).some((r) => typeof r === 'object' && 'stream' in r && r.stream)) continue;
    client[id] = async (
      input: { params?: Record<string, string>; body?: unknown; query?: Record<string, unknown>; idempotencyKey?: string; key?: string } = {},
    ) => {
      const path = operationPath(id, input.params);
      const query = input.query ? queryString(input.query) : '';
      const key = input.key ?? keyFor(op.auth, options);
      try {
        const res = await transport<never>(options.baseUrl, {
          method: op.method,
          path: path + query,
          key,
          body: input.body,
          idempotencyKey: input.idempotencyKey,
          headers: options.headers,
          ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        });
        return { ok: true, status: res.status, data: res.data, requestId: res.requestId, replayed: res.replayed };
      } catch (error) {
        if (error instanceof ApiRefusedError) return { ok: false, status: error.status, error: error.error, requestId: error.requestId };
        throw error;
      }
    };
  }
  return client as Client;
}

function keyFor(auth: 'partner' | 'merchant' | 'either' | 'none', options: ClientOptions): string | undefined {
  if (auth === 'none') return undefined;
  if (auth === 'partner') return options.partnerKey;
  if (auth === 'merchant') return options.merchantKey;
  return options.merchantKey ?? options.partnerKey;
}

function queryString(query: Record<string, unknown>): string {
  const entries = Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
}
