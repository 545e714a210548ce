import { buildOpenApi } from '../openapi.js';
import type { RouteDef } from '../route.js';

/** `GET /openapi.json`, built once per emulator from the routes it serves. */
export function openApiRoute(routes: () => readonly RouteDef[]): RouteDef {
  let cached: string | undefined;
  return {
    method: 'GET',
    path: '/openapi.json',
    auth: 'none',
    doc: { summary: 'This OpenAPI document', tag: 'Meta', hidden: true },
    handle: (_input, deps) => {
      cached ??= JSON.stringify(buildOpenApi(routes(), deps.version, deps.baseUrl()), null, 2);
      return { status: 200, text: cached, contentType: 'application/json; charset=utf-8' };
    },
  };
}
