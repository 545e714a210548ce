import { z } from 'zod';
import type { RouteDef } from './route.js';
import { errorSchema } from './validation/common.js';

const SHARED_ERRORS: Record<string, string> = {
  '400': 'Bad request: invalid_json, validation_failed, environment_not_allowed, or a more specific code.',
  '401': 'unauthorized: missing, malformed or unknown key.',
  '403': 'forbidden_key_type (wrong kind of key) or test_mode_only.',
};

/**
 * OpenAPI 3.1 from the same zod schemas that validate requests, so the document cannot drift from
 * the behaviour. Everything beyond the interface document carries `x-svc-extension: true`.
 */
export function buildOpenApi(routes: readonly RouteDef[], version: string, serverUrl: string): object {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, unknown> = {};
  const toSchema = (schema: z.ZodType, io: 'input' | 'output') => {
    const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' });
    // Named shapes (`.meta({id})`) move to components; rewrite the references before splitting them off.
    const json = JSON.parse(JSON.stringify(generated).replaceAll('#/$defs/', '#/components/schemas/')) as Record<string, unknown>;
    delete json.$schema;
    Object.assign(schemas, (json.$defs ?? {}) as Record<string, unknown>);
    delete json.$defs;
    return json;
  };

  for (const route of routes) {
    if (route.doc.hidden) continue;
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const query = route.doc.query
      ? Object.entries(route.doc.query.shape as Record<string, z.ZodType>).map(([name, schema]) => ({
          name,
          in: 'query',
          required: false,
          schema: toSchema(schema, 'input'),
        }))
      : [];
    const headers = route.idempotent
      ? [
          route.idempotent.optional
            ? {
                name: 'Idempotency-Key',
                in: 'header',
                required: false,
                schema: { type: 'string', minLength: 1, maxLength: 255 },
                description:
                  'Optional (extension): with a key, a repeat of the same request on the same path returns the first response instead of acting again (fixtures use this).',
              }
            : {
                name: 'Idempotency-Key',
                in: 'header',
                required: true,
                schema: { type: 'string', minLength: 1, maxLength: 255 },
                description: 'Unique per create attempt; a replay with the same body returns the first response.',
              },
        ]
      : [];
    const responses: Record<string, unknown> = {};
    const ok = route.doc.response ?? { status: 200 };
    responses[String(ok.status)] = {
      description: ok.description ?? 'Success',
      ...(ok.schema ? { content: { 'application/json': { schema: toSchema(ok.schema, 'output') } } } : {}),
    };
    if (route.idempotent) {
      responses['200'] = {
        description: 'Idempotent replay: the first response, byte for byte, with `Idempotent-Replayed: true`.',
        headers: { 'Idempotent-Replayed': { schema: { type: 'string', const: 'true' } } },
        ...(ok.schema ? { content: { 'application/json': { schema: toSchema(ok.schema, 'output') } } } : {}),
      };
    }
    const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
    const errorCodes = route.doc.errors ?? [];
    for (const [status, description] of Object.entries(SHARED_ERRORS)) {
      if (status !== '401' && status !== '403' ? true : route.auth !== 'none') {
        responses[status] = { description, content: errorContent };
      }
    }
    if (errorCodes.length) responses.default = { description: `Also: ${errorCodes.join(', ')}.`, content: errorContent };

    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      summary: route.doc.summary,
      tags: [route.doc.tag],
      operationId: operationId(route),
      ...(route.doc.extension ? { 'x-svc-extension': true } : {}),
      ...(route.auth === 'none' ? { security: [] } : {}),
      ...(params.length + query.length + headers.length ? { parameters: [...params, ...query, ...headers] } : {}),
      ...(route.body
        ? { requestBody: { required: !route.body.safeParse({}).success, content: { 'application/json': { schema: toSchema(route.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  schemas.Error = toSchema(errorSchema, 'output');

  return {
    openapi: '3.1.0',
    info: {
      title: 'Crypto payment invoicing service (svc emulator)',
      version,
      description: 'Operations marked `x-svc-extension: true` are served by the emulator beyond the interface document.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'pt_test_/pt_live_ partner keys, test_/live_ merchant keys.' } },
      schemas,
    },
    paths,
  };
}

function operationId(route: RouteDef): string {
  const words = route.path
    .replace(/^\/(v1|__emulator)\//, '')
    .split('/')
    .map((s) => (s.startsWith(':') ? `by-${s.slice(1)}` : s))
    .join('-');
  const camel = `${route.method.toLowerCase()}-${words}`.replace(/[-_]+(\w)/g, (_m, c: string) => c.toUpperCase());
  return (route.control ? `emulator${camel[0]!.toUpperCase()}${camel.slice(1)}` : camel).replace(/[^A-Za-z0-9]/g, '');
}
