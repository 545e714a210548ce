/**
 * Every error code the emulator answers with, its HTTP status and what it means (CONTRACT §2, §6–8).
 * `ApiError` takes only these codes, the OpenAPI document lists them per operation and status, and
 * the response checker of the integration suite refuses any other. Free of zod (the CLI imports it).
 */
export const ERRORS = {
  invalid_request: { status: 400, description: 'The request is not valid HTTP/1.1, or its body could not be read.' },
  invalid_json: { status: 400, description: 'The body is not JSON, or not a JSON object.' },
  validation_failed: { status: 400, description: 'A field (or query parameter) is missing or invalid; `param` names it.' },
  environment_not_allowed: { status: 400, description: '`environment` was sent in a body: it is taken from the API key.' },
  fee_fields_not_allowed: { status: 400, description: 'A field whose name contains `fee` was sent to create-merchant; `param` names it.' },
  idempotency_key_required: { status: 400, description: 'A create was sent without an `Idempotency-Key` header.' },
  idempotency_key_invalid: { status: 400, description: 'The `Idempotency-Key` header is empty or longer than 255 characters.' },
  route_not_available: { status: 400, description: '`networkId`/`token` is not enabled for the merchant (or the invoice) in this environment.' },
  webhook_url_not_allowed: { status: 400, description: "The webhook URL breaks the environment's rule (live: public https only)." },
  webhook_secret_required: { status: 400, description: 'The first webhook PUT needs a `secret`.' },
  webhook_secret_invalid: { status: 400, description: 'The secret is shorter than 16 or longer than 255 characters.' },
  unauthorized: { status: 401, description: 'The API key is missing, malformed or unknown.' },
  forbidden_key_type: { status: 403, description: 'A merchant key on a partner endpoint, or the reverse.' },
  test_mode_only: { status: 403, description: 'A test helper was called with a live key.' },
  host_not_allowed: { status: 403, description: 'The `Host` header names a host the emulator does not answer to (DNS rebinding protection).' },
  cross_site_request: { status: 403, description: 'A write to the control plane or a page endpoint came from another origin.' },
  control_plane_forbidden: {
    status: 403,
    description:
      'With a control token (`svc dev --control-token`), the control plane answers only clients sending it, loopback ones too; without one, loopback clients, or any client under `svc dev --expose-control-plane`.',
  },
  not_found: { status: 404, description: 'No route has this path.' },
  merchant_not_found: { status: 404, description: 'No such merchant for this partner in this environment.' },
  invoice_not_found: { status: 404, description: 'No such invoice for this key in this environment.' },
  delivery_not_found: { status: 404, description: 'No such delivery for this partner in this environment.' },
  webhook_not_configured: { status: 404, description: 'No webhook is configured for this environment.' },
  payment_not_found: { status: 404, description: 'No such payment on this invoice.' },
  fault_not_found: { status: 404, description: 'No such fault (it was cleared, or used up its `times`).' },
  snapshot_not_found: { status: 404, description: 'No snapshot has this name.' },
  chain_not_found: {
    status: 404,
    description: 'No local chain has this networkId: `svc dev --chains` runs one for each EVM test network (11155111, 84532, 80002, 421614).',
  },
  request_not_found: { status: 404, description: 'The request journal has no entry with this request id (not an API request, rotated out, or cleared).' },
  method_not_allowed: { status: 405, description: 'The path exists, not with this method; `Allow` lists the methods.' },
  request_timeout: { status: 408, description: 'The request body did not arrive within 10 s.' },
  idempotency_key_in_progress: { status: 409, description: 'A request with this `Idempotency-Key` is still being processed.' },
  external_tenant_id_taken: { status: 409, description: 'The partner already has a merchant with this `externalTenantId`.' },
  webhook_disabled: { status: 409, description: 'The webhook is disabled or not configured, so nothing can be resent.' },
  invoice_not_expirable: { status: 409, description: 'The invoice is PAID or EXPIRED already.' },
  payment_already_confirmed: { status: 409, description: 'The payment is confirmed already.' },
  result_not_expected: { status: 409, description: 'No forwarded delivery waits for this result (too late, twice, or not yours).' },
  payload_too_large: { status: 413, description: 'The body is over 1 MiB, or holds more than 10,000 JSON values.' },
  unsupported_media_type: { status: 415, description: 'A body was sent with a `Content-Type` other than `application/json`.' },
  idempotency_key_reused: { status: 422, description: 'This `Idempotency-Key` was used with a different body.' },
  snapshot_invalid: {
    status: 422,
    description: 'The snapshot file is not one svc wrote (its schema has objects svc never creates, or lacks some), or cannot be read; nothing was changed.',
  },
  headers_too_large: { status: 431, description: 'The request headers are larger than 16 KiB.' },
  internal_error: { status: 500, description: 'Something unexpected failed; it is logged with the request id.' },
  upstream_unavailable: { status: 502, description: '`svc proxy` could not reach the deployment it forwards to (CONTRACT §13); nothing was forwarded.' },
  database_busy: { status: 503, description: "Another program holds the database's write lock; nothing changed. Retry after `Retry-After`." },
  database_unavailable: {
    status: 503,
    description: 'The shared PostgreSQL database cannot be reached (restarting, or the connection was lost); nothing changed. Retry after `Retry-After`.',
  },
  chain_unavailable: { status: 502, description: "The local chain's node did not answer (it stopped or crashed); nothing was sent to it." },
  storage_full: { status: 507, description: 'The database cannot be written (disk full or a file size limit); nothing changed.' },
  temporary_folder_unavailable: {
    status: 507,
    description:
      'A snapshot in transit needs a temporary folder, and the emulator cannot make one (`TMPDIR`, else `/tmp`, is read-only, full or not writable); nothing changed. Point `TMPDIR` at a writable folder.',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERRORS;
/** Whether a string is one of the contract's error codes (`Object.keys(ERRORS)` gives plain strings). */
export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(ERRORS, value);
export type ErrorStatus = (typeof ERRORS)[ErrorCode]['status'];
/** The codes a status can carry. */
export type CodeOfStatus<S extends number> = { [C in ErrorCode]: (typeof ERRORS)[C]['status'] extends S ? C : never }[ErrorCode];

/** The contract's error body (CONTRACT §2); `param` only where a field is at fault. */
export interface ApiErrorBody<C extends ErrorCode = ErrorCode> {
  error: { code: C; message: string; param?: string };
}

/**
 * Codes any request can get, whatever it asks: the `Host` check, malformed HTTP, and the body rules
 * that apply to every route, even one that takes no body (CONTRACT §2, §8).
 */
export const EVERY_REQUEST = [
  'invalid_request',
  'invalid_json',
  'environment_not_allowed',
  'host_not_allowed',
  'request_timeout',
  'payload_too_large',
  'unsupported_media_type',
  'headers_too_large',
  'internal_error',
] as const satisfies readonly ErrorCode[];

/** Codes a request that matched no operation can get (before or instead of a route). */
export const UNROUTED = [...EVERY_REQUEST, 'not_found', 'method_not_allowed', 'cross_site_request'] as const satisfies readonly ErrorCode[];
