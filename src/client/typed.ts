/**
 * A typed client of the API for users' tests (`svc-emulator/client`, and `emulator.client` of an
 * in-process emulator), and the CLI's one way to the service: one method per operation of the
 * contract, named by its operation id, typed from it (the body it takes, the success it answers, and
 * every error code it can answer as a union that `switch (result.error.code)` narrows). Methods never
 * throw for an answer of the API: a refusal is `{ ok: false, status, error }`; only an unreachable
 * service rejects (and a missing key, when `missingKey` says so).
 *
 * Loads no zod and no `node:` module of its own: the operations (src/contract/operations) are plain
 * data, the types are erased, and the transport is ./http.ts (the dashboard will swap it for fetch).
 */
import type { ErrorCode } from '../contract/errors.js';
import { OPERATIONS, type OperationId, type Operations } from '../contract/operations/index.js';
import type { OperationSpec } from '../contract/operation.js';
import type { BodyInputOf, ErrorCodeOf, ParamsOf, QueryInputOf, SuccessOf } from '../contract/types.js';
import { ApiRefusedError } from './errors.js';
import { type FetchLike, fetchTransport } from './fetch-send.js';
import { controlHeaders, send } from './http.js';

// A stream reader that can send the control token (EventSource cannot): the dashboard's change feed.
export { readEvents } from './fetch-events.js';

/** One error the API answers with: `code` narrows the union. */
export type ClientError<C extends ErrorCode> = C extends ErrorCode ? { code: C; message: string; param?: string } : never;

type IsFile<Id extends OperationId> = Operations[Id]['responses'] extends Record<number, infer R> ? (R extends { mediaType: string } ? true : false) : false;
/** The success body: the contract's type, or the bytes of a file download (`exportSnapshot`). */
export type ClientData<Id extends OperationId> = IsFile<Id> extends true ? Uint8Array : SuccessOf<Id>;

/** What a call answers: the success, typed, or the contract's error, with the operation's codes. */
export type ClientResult<Id extends OperationId> =
  | { ok: true; status: number; data: ClientData<Id>; requestId: string | null; replayed: boolean }
  | { ok: false; status: number; error: ClientError<ErrorCodeOf<Id>>; requestId: string | null };

type Streams = {
  [Id in OperationId]: Operations[Id]['responses'] extends Record<number, infer R> ? (R extends { stream: true; mediaType?: undefined } ? Id : never) : never;
}[OperationId];
/** The operations the client offers: all but the event streams (a file download answers its bytes). */
export type ClientOperationId = Exclude<OperationId, Streams>;
/** The event streams (server-sent events): the client gives their URL (`client.url`), not a method. */
export type StreamOperationId = Streams;

/** Which key a request carries. */
export type KeyKind = 'partner' | 'merchant' | 'none';

type Idempotent<Id extends OperationId> = Operations[Id] extends { idempotency: infer I } ? (I extends { optional: true } ? 'optional' : 'required') : 'none';
type ParamsPart<Id extends OperationId> = keyof ParamsOf<Id> extends never ? { params?: undefined } : { params: ParamsOf<Id> };
type BodyPart<Id extends OperationId> = BodyInputOf<Id> extends undefined ? { body?: undefined } : { body: BodyInputOf<Id> };
type QueryPart<Id extends OperationId> = QueryInputOf<Id> extends undefined ? { query?: undefined } : { query?: QueryInputOf<Id> };
type KeyPart<Id extends OperationId> = Idempotent<Id> extends 'required' ? { idempotencyKey: string } : { idempotencyKey?: string };
type EitherPart<Id extends OperationId> = Operations[Id]['auth'] extends 'either' ? { keyKind?: 'partner' | 'merchant' } : { keyKind?: undefined };

/** Per call, whatever the operation. */
export interface CallOptions {
  /** Sent instead of the client's key. */
  key?: string;
  /** In milliseconds, instead of the client's `timeoutMs`. */
  timeoutMs?: number;
}

/**
 * A call's input: path parameters, body, query and `Idempotency-Key` as the operation takes them;
 * `keyKind` picks which of the client's keys an operation taking either kind sends (test helpers;
 * default the merchant key, else the partner key).
 */
export type ClientInput<Id extends OperationId> = ParamsPart<Id> & BodyPart<Id> & QueryPart<Id> & KeyPart<Id> & EitherPart<Id> & CallOptions;

type IsOptional<T> = Partial<T> extends T ? true : false;
type Method<Id extends OperationId> =
  IsOptional<ClientInput<Id>> extends true ? (input?: ClientInput<Id>) => Promise<ClientResult<Id>> : (input: ClientInput<Id>) => Promise<ClientResult<Id>>;

/** An operation chosen at run time (a fixtures step): the input unchecked, the answer `unknown`. */
export interface DynamicInput extends CallOptions {
  params?: Record<string, string>;
  body?: unknown;
  query?: Record<string, unknown>;
  idempotencyKey?: string;
  /** Which key to send; default: the one the operation's `auth` names (the merchant's for `either`). */
  keyKind?: KeyKind;
}
export type DynamicResult =
  | { ok: true; status: number; data: unknown; requestId: string | null; replayed: boolean }
  | { ok: false; status: number; error: { code: string; message: string; param?: string }; requestId: string | null };

/** One method per operation, named by its operation id (`createInvoice`, `getPartnerInvoice`, …). */
export type Client = { [Id in ClientOperationId]: Method<Id> } & {
  readonly baseUrl: string;
  /** Any operation by id, the input unchecked (what a fixtures file names): same result, `data: unknown`. */
  call(id: OperationId, input?: DynamicInput): Promise<DynamicResult>;
  /** The absolute URL of an operation (an event stream's, for an SSE reader), path parameters and query filled in. */
  url(id: OperationId, input?: { params?: Record<string, string>; query?: Record<string, unknown> }): string;
  /** The client's key of that kind; `missingKey`'s error when it has none (undefined without the hook). */
  key(kind: 'partner' | 'merchant'): string | undefined;
  /** What a reader of a control-plane stream (`url(…)`) sends besides its key: the control token's header, if any. */
  controlHeaders(): Record<string, string>;
};

/** A request as it goes out: what `onSend` sees. */
export interface SentRequest {
  operationId: OperationId;
  method: OperationSpec['method'];
  /** The path with its query string, as sent. */
  path: string;
  kind: KeyKind;
  /** The key it carries (none for `kind: 'none'`). */
  key: string | undefined;
}

export interface ClientOptions {
  /** The service: an emulator's `url`, or a deployment's base URL. */
  baseUrl: string;
  /** Sent to partner endpoints (`pt_test_…` / `pt_live_…`). */
  partnerKey?: string | undefined;
  /** Sent to merchant endpoints (`test_…` / `live_…`); test helpers take it before the partner key. */
  merchantKey?: string | undefined;
  /** Per call, in milliseconds (default 30 s); a call's own `timeoutMs` wins. */
  timeoutMs?: number | undefined;
  /** Called with each request as it goes out, and the key it carries (the CLI's --verbose). */
  onSend?: ((request: SentRequest) => void) | undefined;
  /**
   * The error a call rejects with when it needs a kind of key the client lacks, before anything is
   * sent. Without it the request goes out without a key, and the API answers 401 `unauthorized`.
   */
  missingKey?: ((kind: 'partner' | 'merchant', request?: { operationId: OperationId; method: string; path: string }) => Error) | undefined;
  /**
   * The remote control plane's token (`svc dev --control-token`, CONTRACT §12): sent as
   * `Svc-Control-Token` on the control operations (`/__emulator/…`) only, never on the API's. Not
   * needed on loopback (an in-process emulator's `emulator.client`, `svc dev` on this machine).
   */
  controlToken?: string | undefined;
  /** Sent with every call, e.g. the dashboard's `Svc-Client: dashboard` (which the request journal marks). */
  headers?: Record<string, string> | undefined;
  /**
   * Send with this `fetch` instead of node:http. Where there is no Node (a browser: the emulator's
   * dashboard loads this module), the global `fetch` is used without being asked.
   */
  fetch?: FetchLike | undefined;
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
  const pathOf = (id: OperationId, input: { params?: Record<string, string>; query?: Record<string, unknown> }) =>
    operationPath(id, input.params) + (input.query ? queryString(input.query) : '');
  const transport = options.fetch || !onNode ? fetchTransport(options.fetch ?? globalThis.fetch) : send;

  const keyOf = (kind: 'partner' | 'merchant') => (kind === 'partner' ? options.partnerKey : options.merchantKey);

  const call = async (id: OperationId, input: DynamicInput = {}): Promise<DynamicResult> => {
    const op: OperationSpec = OPERATIONS[id];
    const path = pathOf(id, input);
    const kind = input.keyKind ?? kindFor(op.auth, options);
    let key = input.key;
    if (key === undefined && kind !== 'none') {
      key = keyOf(kind);
      if (!key && options.missingKey) throw options.missingKey(kind, { operationId: id, method: op.method, path });
    }
    options.onSend?.({ operationId: id, method: op.method, path, kind, key });
    const file = Object.values(op.responses).some((r) => typeof r === 'object' && r.mediaType !== undefined);
    const timeoutMs = input.timeoutMs ?? options.timeoutMs;
    try {
      const res = await transport(options.baseUrl, {
        method: op.method,
        path,
        key,
        body: input.body,
        idempotencyKey: input.idempotencyKey,
        control: op.control === true,
        controlToken: options.controlToken,
        headers: options.headers,
        ...(file ? { binary: true } : {}),
        ...(timeoutMs ? { timeoutMs } : {}),
      });
      return { ok: true, status: res.status, data: res.data, requestId: res.requestId, replayed: res.replayed };
    } catch (error) {
      if (error instanceof ApiRefusedError) return { ok: false, status: error.status, error: error.error, requestId: error.requestId };
      throw error;
    }
  };

  const client: Record<string, unknown> = {
    baseUrl: options.baseUrl,
    call,
    url: (id: OperationId, input = {}) => new URL(pathOf(id, input), options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`).href,
    key: (kind: 'partner' | 'merchant') => {
      const key = keyOf(kind);
      if (!key && options.missingKey) throw options.missingKey(kind);
      return key;
    },
    controlHeaders: () => controlHeaders({ control: true, controlToken: options.controlToken }),
  };
  for (const [id, op] of operationEntries()) {
    if (Object.values(op.responses).some((r) => typeof r === 'object' && r.stream && r.mediaType === undefined)) continue;
    client[id] = (input?: DynamicInput) => call(id, input);
  }
  return client as Client;
}

/** The contract's operations with their ids as ids (`Object.entries` widens a key to `string`). */
export function operationEntries(): [OperationId, OperationSpec][] {
  const entries: [OperationId, OperationSpec][] = [];
  for (const [id, op] of Object.entries(OPERATIONS)) if (isOperationId(id)) entries.push([id, op]);
  return entries;
}

function isOperationId(id: string): id is OperationId {
  return Object.hasOwn(OPERATIONS, id);
}

/** The kind of key an operation sends by default: `either` takes the merchant key first (its own invoices). */
function kindFor(auth: OperationSpec['auth'], options: ClientOptions): KeyKind {
  if (auth === 'either') return options.merchantKey || !options.partnerKey ? 'merchant' : 'partner';
  return auth;
}

function queryString(query: Record<string, unknown>): string {
  const entries = Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
}
