import type * as z from 'zod';
import { ERRORS, isErrorCode } from '../errors.js';
import { errorCodesOf, type OperationSpec, type ResponseSpec, TAGS } from '../operation.js';
import { operationEntries } from '../operations/index.js';
import { REQUEST_SCHEMAS } from '../schemas/requests.js';
import { SNAPSHOT_NAME } from '../snapshot-name.js';
import { RESPONSE_SCHEMAS } from '../schemas/responses.js';
import { STREAM_MESSAGES } from '../schemas/streams.js';
import { errorResponsesOf, errorSchema, HEADERS, injectedFaultResponse, sharedErrorResponses } from './errors.js';
import { type JsonSchema, objectOf, toJsonSchema } from './json-schema.js';
import { webhooksSection } from './webhooks.js';

/** Where `svc openapi` points the document when no emulator is known (the default port). */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:4747';

const SECURITY = {
  partner: [{ partnerKey: [] }],
  merchant: [{ merchantKey: [] }],
  either: [{ partnerKey: [] }, { merchantKey: [] }],
  none: [],
} as const;

const EXTENSION_NOTE = 'Extension: served by the emulator beyond the interface document.';

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers: { url: string; description: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, unknown>>;
  webhooks: Record<string, unknown>;
  components: Record<string, unknown>;
}

/**
 * The OpenAPI 3.1 document, from the operations and the schemas alone: what `GET /openapi.json`
 * serves (built on its first request, then cached) and what `svc openapi` prints without an
 * emulator. Everything beyond the interface document carries `x-svc-extension: true`.
 */
export function buildOpenApi(version: string, serverUrl: string = DEFAULT_SERVER_URL): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(RESPONSE_SCHEMAS)) {
    // Each response schema is named by its own `.meta({ id })`, which must be its registry name.
    if (toJsonSchema(schema, 'output', schemas).$ref !== `#/components/schemas/${name}`)
      throw new Error(`response schema ${name} needs .meta({ id: '${name}' })`);
  }
  for (const [name, schema] of Object.entries(REQUEST_SCHEMAS)) {
    if (name.endsWith('Request')) schemas[name] = toJsonSchema(schema, 'input', schemas);
  }
  schemas.Error = errorSchema(Object.keys(ERRORS).filter(isErrorCode));
  // Each stream's messages, by SSE event name, as $refs (each schema named by its `.meta({ id })`).
  const streamEvents: Record<string, Record<string, JsonSchema>> = {};
  for (const [id, messages] of Object.entries(STREAM_MESSAGES)) {
    streamEvents[id] = Object.fromEntries(Object.entries(messages).map(([event, schema]) => [event, toJsonSchema(schema, 'output', schemas)]));
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const [id, op] of operationEntries()) {
    paths[op.path] ??= {};
    paths[op.path]![op.method.toLowerCase()] = operationObject(id, op, schemas, streamEvents[id]);
  }
  // The shared error responses the operations refer to: only those become components.
  const usedResponses = new Set([...JSON.stringify(paths).matchAll(/#\/components\/responses\/(\w+)/g)].map((m) => m[1]!));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Crypto payment invoicing service (svc emulator)',
      version,
      description: [
        'The partner and merchant API of the crypto payment invoicing service, as the svc emulator serves it.',
        'Operations and schema fields marked `x-svc-extension: true` are served beyond the interface document.',
        'Errors have the shape `{"error":{"code","message","param"?}}`; each response lists the codes it can carry. Every response carries `Request-Id`.',
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl, description: 'The emulator' }],
    tags: [
      ...Object.entries(TAGS).map(([name, description]) => ({ name, description })),
      { name: 'Webhook events', description: 'What the emulator sends to the webhook URL (interface §2.4, §6).' },
    ],
    paths,
    webhooks: webhooksSection(),
    components: {
      securitySchemes: {
        partnerKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'Partner API key: `pt_test_` or `pt_live_` and 32 letters and digits. The key fixes the environment.',
        },
        merchantKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'Merchant API key: `test_` or `live_` and 32 letters and digits. The key fixes the environment.',
        },
      },
      schemas,
      responses: { ...sharedErrorResponses(usedResponses), InjectedFault: injectedFaultResponse() },
      headers: HEADERS,
    },
  };
}

/** A `Request-Id` as the emulator writes them (src/server/app.ts): `req_` and lowercase hex. */
const REQUEST_ID = { type: 'string', pattern: '^req_[0-9a-f]+$' };

/** Path parameters that are not a resource's UUID, by name. */
const PATH_PARAMETERS: Record<string, JsonSchema> = {
  name: { type: 'string', pattern: SNAPSHOT_NAME.source },
  requestId: REQUEST_ID,
  networkId: { type: 'string', pattern: '^[1-9][0-9]{0,9}$', description: "A network's id (CONTRACT §3), which a local chain uses as its chain id." },
};

function operationObject(
  id: string,
  op: OperationSpec,
  schemas: Record<string, JsonSchema>,
  streamEvents: Record<string, JsonSchema> | undefined,
): Record<string, unknown> {
  const parameters: unknown[] = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    // Every path parameter is a resource's UUID, except a snapshot's name, a journal entry's request id
    // and a local chain's network id.
    schema: PATH_PARAMETERS[m[1]!] ?? { type: 'string', format: 'uuid' },
  }));
  if (op.query) parameters.push(...queryParameters(REQUEST_SCHEMAS[op.query], schemas));
  if (op.idempotency) parameters.push(idempotencyHeader(op.idempotency.optional === true));

  const responses: Record<string, unknown> = {};
  const specs: [string, ResponseSpec][] = Object.entries(op.responses);
  for (const [status, spec] of specs) {
    responses[status] = successResponse(op, spec, status, streamEvents);
  }
  const success = specs.find(([s]) => s.startsWith('2'));
  if (op.idempotency && success && !responses['200']) {
    const first = successResponse(op, success[1], success[0], streamEvents);
    responses['200'] = {
      ...first,
      description: 'Idempotent replay: the first response, byte for byte, with `Idempotent-Replayed: true`.',
      headers: {
        ...(first.headers === undefined ? {} : objectOf(first.headers, 'headers')),
        'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' },
      },
    };
  }
  for (const [status, response] of Object.entries(errorResponsesOf(errorCodesOf(op)))) {
    if (responses[status]) throw new Error(`${id}: status ${status} is both a response and an error`);
    responses[status] = response;
  }
  // Any API operation can answer what a test's fault injects (CONTRACT §9); the control plane never does.
  if (op.path.startsWith('/v1/')) responses.default = { $ref: '#/components/responses/InjectedFault' };

  const body = op.body ? REQUEST_SCHEMAS[op.body] : undefined;
  return {
    operationId: id,
    summary: op.summary,
    ...(op.description || op.extension ? { description: [op.description, op.extension ? EXTENSION_NOTE : ''].filter(Boolean).join('\n\n') } : {}),
    tags: [op.tag],
    security: SECURITY[op.auth],
    ...(op.extension ? { 'x-svc-extension': true } : {}),
    ...(op.control ? { 'x-svc-control-plane': true } : {}),
    ...(op.testOnly ? { 'x-svc-test-keys-only': true } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body && op.body
      ? {
          requestBody: {
            required: !body.safeParse({}).success,
            content: { 'application/json': { schema: bodySchema(op.body, op.jsonRpc === true) } },
          },
        }
      : {}),
    responses,
  };
}

/** A body's schema: its component, or for JSON-RPC one request or a batch of them. */
function bodySchema(name: string, jsonRpc: boolean): JsonSchema {
  const ref = { $ref: `#/components/schemas/${name}` };
  return jsonRpc ? { oneOf: [ref, { type: 'array', minItems: 1, items: ref }] } : ref;
}

function successResponse(op: OperationSpec, spec: ResponseSpec, status: string, streamEvents?: Record<string, JsonSchema>): Record<string, unknown> {
  const { schema, description, stream, mediaType } =
    typeof spec === 'string' ? { schema: spec, description: undefined, stream: false, mediaType: undefined } : spec;
  if (stream && !mediaType && !streamEvents) throw new Error(`${op.path}: a stream needs its messages in STREAM_MESSAGES (schemas/streams.ts)`);
  const headers: Record<string, unknown> = { 'Request-Id': { $ref: '#/components/headers/RequestId' } };
  if (op.method !== 'GET') headers.Warning = { $ref: '#/components/headers/Warning' };
  const content = mediaType
    ? { [mediaType]: { schema: { type: 'string', format: 'binary' } } }
    : stream
      ? {
          'text/event-stream': streamEvents ? streamMedia(streamEvents) : { schema: { type: 'string' } },
        }
      : schema
        ? { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } }
        : undefined;
  return { description: description ?? (status === '201' ? 'Created' : 'Success'), headers, ...(content ? { content } : {}) };
}

/**
 * A stream's media type. OpenAPI 3.1 has no place for an event stream's messages (3.2's `itemSchema`
 * is one): `x-svc-events` names each `event:` and the schema of its `data:` line, and the string's
 * `contentSchema` lists the same schemas, where tools (Redocly) follow their references.
 */
function streamMedia(events: Record<string, JsonSchema>): Record<string, unknown> {
  const refs = [...new Map(Object.values(events).map((ref) => [JSON.stringify(ref), ref])).values()];
  return {
    schema: {
      type: 'string',
      description:
        'Server-sent events, kept open until either side closes: each frame is `event: <name>` and one `data:` line holding a JSON message of the schema `x-svc-events` gives for that name; `: ping` comments keep it alive.',
      contentMediaType: 'text/event-stream',
      contentSchema: { oneOf: refs },
    },
    'x-svc-events': events,
  };
}

function queryParameters(query: z.ZodObject, schemas: Record<string, JsonSchema>): unknown[] {
  const json = toJsonSchema(query, 'input', schemas);
  const required = Array.isArray(json.required) ? json.required : [];
  const properties = json.properties === undefined ? {} : objectOf(json.properties, "a query schema's properties");
  return Object.entries(properties).map(([name, schema]) => {
    const { description, ...rest } = objectOf(schema, `query parameter ${name}`);
    return { name, in: 'query', required: required.includes(name), ...(description ? { description } : {}), schema: rest };
  });
}

function idempotencyHeader(optional: boolean) {
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required: !optional,
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    description: optional
      ? 'Optional (extension): with a key, a repeat of the same request on the same path returns the first response instead of acting again (fixtures use this).'
      : 'Unique per create attempt; a replay with the same body returns the first response (200, `Idempotent-Replayed: true`) for 24 hours.',
  };
}
