import { EVERY_REQUEST, type ErrorCode } from './errors.js';
import type { RequestSchemaName } from './schemas/requests.js';
import type { ResponseSchemaName } from './schemas/responses.js';

/**
 * One operation of the API, declared once: the route table, the OpenAPI document, the client's
 * types and the response checker all read it. Schemas are named, not imported: the request and
 * response registries (`schemas/requests.ts`, `schemas/responses.ts`) hold them, so this file, and
 * the client that reads it, load no zod, and the server never builds a response schema.
 */
export interface OperationSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path template with the interface document's parameter names (`{id}`); every parameter is a UUID. */
  path: string;
  summary: string;
  description?: string;
  tag: Tag;
  /** Which key it takes: `either` takes both kinds; `none` no key at all. */
  auth: 'partner' | 'merchant' | 'either' | 'none';
  /** The JSON body's schema (its keys are the known fields). Absent: the operation takes no body. */
  body?: RequestSchemaName;
  /** The query's schema. */
  query?: RequestSchemaName;
  /** What the handler answers, by status (the idempotent replay's 200 and the errors are added). */
  responses: Readonly<Record<number, ResponseSpec>>;
  /** Error codes beyond the shared ones (those follow from auth, body, query, idempotency, method). */
  errors?: readonly ErrorCode[];
  /**
   * An idempotent create (CONTRACT §2): `endpoint` names the scope (stored: never rename one).
   * `optional` (test helpers, an extension): the header may be left out, and the request then simply
   * acts; `perPath`: the scope also holds the request path; `tenantScoped`: and `externalTenantId`.
   */
  idempotency?: { endpoint: string; optional?: boolean; perPath?: boolean; tenantScoped?: boolean };
  /** Served beyond the interface document (CONTRACT: marked in OpenAPI and the docs). */
  extension?: boolean;
  /** Loopback-only control plane (CONTRACT §7): cross-site writes refused. */
  control?: boolean;
  /** 403 test_mode_only with a live key (CONTRACT §6). */
  testOnly?: boolean;
  /** Refuse fee fields at any depth of the body (create-merchant). */
  rejectFeeFields?: boolean;
  /**
   * A JSON-RPC 2.0 endpoint (a local chain's `rpcUrl`, CONTRACT §14): the body may also be an array
   * of `body` objects (a batch), each validated alone; the answer is JSON-RPC's own.
   */
  jsonRpc?: boolean;
}

/** A response: a schema's name, or one with a description, an SSE stream, or no body at all. */
export type ResponseSpec = ResponseSchemaName | { schema?: ResponseSchemaName; description?: string; stream?: boolean; mediaType?: string };

export const TAGS = {
  Merchants: 'Sub-merchants of a partner (interface §4.1; reads are extensions).',
  Invoices: 'Invoices, partner and merchant variants (interface §4.2–4.3; reads are extensions).',
  Webhook: "The partner's webhook configuration and its deliveries (interface §4.4–4.6).",
  'Test helpers': 'Extension: simulate payments, confirmations and expiry with test keys (CONTRACT §6).',
  'Emulator control plane': 'Extension: the emulator itself, loopback only (CONTRACT §7).',
} as const;
export type Tag = keyof typeof TAGS;

/**
 * Where the API's own operations live (the interface document's `/v1/…`); every other operation is
 * the emulator's control plane. The request journal and API faults cover this prefix only, unknown
 * paths under it included, so the server tests a request's path against it before routing.
 */
export const API_PATH_PREFIX = '/v1/';

/** Keeps every literal (ids, paths, error codes) so that the types can see them. */
export function defineOperations<const T extends Record<string, OperationSpec>>(operations: T): T {
  return operations;
}

/** Whether a method writes (and can then meet a locked or full database). */
const writes = (op: Pick<OperationSpec, 'method'>) => op.method !== 'GET';

/**
 * Every code an operation can answer, shared ones included, in catalog order of appearance. The
 * type `SharedCodesOf` below says the same for the compiler; a unit test holds them together.
 */
export function errorCodesOf(op: OperationSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(EVERY_REQUEST);
  if (op.auth !== 'none') codes.add('unauthorized');
  if (op.auth === 'partner' || op.auth === 'merchant') codes.add('forbidden_key_type');
  if (op.testOnly) codes.add('test_mode_only');
  if (op.control) codes.add('control_plane_forbidden');
  if (op.control && writes(op)) codes.add('cross_site_request');
  if (op.body || op.query) codes.add('validation_failed');
  if (op.rejectFeeFields) codes.add('fee_fields_not_allowed');
  if (op.idempotency) {
    if (!op.idempotency.optional) codes.add('idempotency_key_required');
    for (const c of ['idempotency_key_invalid', 'idempotency_key_in_progress', 'idempotency_key_reused'] as const) codes.add(c);
  }
  // PostgreSQL gone away (CONTRACT §12): any operation can meet it, reads too; one that declares
  // its own 503 (health: `degraded`) answers that instead.
  if (!(503 in op.responses)) codes.add('database_unavailable');
  if (writes(op)) {
    codes.add('database_busy');
    codes.add('storage_full');
  }
  for (const code of op.errors ?? []) codes.add(code);
  return [...codes];
}

/** The same as `errorCodesOf`, for the compiler. */
export type SharedCodesOf<O extends OperationSpec> =
  | (typeof EVERY_REQUEST)[number]
  | (O['auth'] extends 'none' ? never : 'unauthorized')
  | (O['auth'] extends 'partner' | 'merchant' ? 'forbidden_key_type' : never)
  | (O extends { testOnly: true } ? 'test_mode_only' : never)
  | (O extends { control: true } ? 'control_plane_forbidden' | (O['method'] extends 'GET' ? never : 'cross_site_request') : never)
  | (O extends { body: string } | { query: string } ? 'validation_failed' : never)
  | (O extends { rejectFeeFields: true } ? 'fee_fields_not_allowed' : never)
  | (O extends { idempotency: infer I }
      ?
          | (I extends { optional: true } ? never : 'idempotency_key_required')
          | 'idempotency_key_invalid'
          | 'idempotency_key_in_progress'
          | 'idempotency_key_reused'
      : never)
  | (O['responses'] extends { 503: unknown } ? never : 'database_unavailable')
  | (O['method'] extends 'GET' ? never : 'database_busy' | 'storage_full');
