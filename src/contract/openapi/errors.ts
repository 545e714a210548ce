import { ERRORS, type ErrorCode, isErrorCode } from '../errors.js';
import type { JsonSchema } from './json-schema.js';

/** The error body of CONTRACT §2, with every code (components.schemas.Error). */
export function errorSchema(codes: readonly ErrorCode[]): JsonSchema {
  return {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', enum: [...codes] },
          message: { type: 'string', description: 'For people: what went wrong and how to fix it.' },
          param: { type: 'string', description: 'The field (or query parameter) at fault, when one is.' },
        },
      },
    },
  };
}

/** `Error`, with `code` narrowed to the codes one response can carry (a union in generated types). */
export function errorWithCodes(codes: readonly ErrorCode[]): JsonSchema {
  return {
    allOf: [{ $ref: '#/components/schemas/Error' }],
    required: ['error'],
    properties: { error: { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: [...codes] } } } },
  };
}

const HEADER = (description: string, schema: JsonSchema, required = false) => ({ description, required, schema });

/** Response headers, by name (components.headers). */
export const HEADERS = {
  RequestId: HEADER('Unique per response; quote it when reporting a problem.', { type: 'string' }, true),
  IdempotentReplayed: HEADER('`true` when this is the replay of an earlier create with the same Idempotency-Key.', { type: 'string', const: 'true' }, true),
  Warning: HEADER('Present when the body held fields the operation does not know; they were ignored.', {
    type: 'string',
    examples: ['299 svc-emulator "Unknown fields ignored: colour"'],
  }),
  RetryAfter: HEADER('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }, true),
  SvcFault: HEADER('Extension: the id of the fault (`POST /__emulator/faults`) that shaped this answer.', { type: 'string', format: 'uuid' }, true),
};

const requestId = { 'Request-Id': { $ref: '#/components/headers/RequestId' } };

/**
 * Shared error responses (components.responses): a status whose only code is the same on every
 * operation that can answer it. Other statuses are written per operation, with that operation's codes.
 */
export const SHARED_ERROR_RESPONSES: Partial<Record<ErrorCode, { name: string; extraHeaders?: Record<string, unknown> }>> = {
  unauthorized: { name: 'Unauthorized' },
  request_timeout: { name: 'RequestTimeout' },
  payload_too_large: { name: 'PayloadTooLarge' },
  unsupported_media_type: { name: 'UnsupportedMediaType' },
  idempotency_key_reused: { name: 'IdempotencyKeyReused' },
  headers_too_large: { name: 'HeadersTooLarge' },
  internal_error: { name: 'InternalError' },
  database_busy: { name: 'DatabaseBusy', extraHeaders: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } },
  database_unavailable: { name: 'DatabaseUnavailable', extraHeaders: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } },
  storage_full: { name: 'StorageFull' },
};

/** A response of one status carrying `codes`, with each code's meaning in its description. */
export function errorResponse(codes: readonly ErrorCode[], extraHeaders: Record<string, unknown> = {}): JsonSchema {
  return {
    description: codes.map((c) => `\`${c}\`: ${ERRORS[c].description}`).join('\n\n'),
    headers: { ...requestId, ...extraHeaders },
    content: { 'application/json': { schema: errorWithCodes(codes) } },
  };
}

/**
 * The shared responses some operation refers to (`used`: their names, from errorResponsesOf): one
 * that none does would be an unused component (a 503 that is `database_busy` alone on no operation
 * since every write can also be `database_unavailable`).
 */
export function sharedErrorResponses(used: ReadonlySet<string>): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [code, shared] of Object.entries(SHARED_ERROR_RESPONSES)) {
    if (isErrorCode(code) && shared && used.has(shared.name)) out[shared.name] = errorResponse([code], shared.extraHeaders);
  }
  return out;
}

/** The operation's errors as responses by status: a shared one where it fits, else its own codes. */
export function errorResponsesOf(codes: readonly ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const shared = list.length === 1 ? SHARED_ERROR_RESPONSES[list[0]!] : undefined;
    // Several codes in one status: each code's own headers (Retry-After of both 503s) stay.
    const headers = Object.assign({}, ...list.map((code) => SHARED_ERROR_RESPONSES[code]?.extraHeaders ?? {}));
    out[String(status)] = shared ? { $ref: `#/components/responses/${shared.name}` } : errorResponse(list, headers);
  }
  return out;
}

/**
 * What any `/v1` operation may answer while a test injects a fault (CONTRACT §9, `POST
 * /__emulator/faults`): the status and code the fault names, which need not be in the catalog. It is
 * each such operation's `default` response; the response checker holds injected answers to it.
 */
export function injectedFaultResponse(): JsonSchema {
  return {
    description:
      'Extension: an answer injected by a fault (`POST /__emulator/faults`), with the status, code and `Retry-After` the fault names. Only while a test has a fault in force.',
    headers: { ...requestId, 'Svc-Fault': { $ref: '#/components/headers/SvcFault' } },
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['error'],
          additionalProperties: false,
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              additionalProperties: false,
              properties: { code: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' }, message: { type: 'string' } },
            },
          },
        },
      },
    },
  };
}
