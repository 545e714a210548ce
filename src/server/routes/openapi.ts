import type { RouteDef } from '../route.js';

/**
 * `GET /openapi.json`, built from the contract on its first request and cached: the builder and the
 * response schemas are imported then, never at start-up.
 */
export function openApiRoute(): RouteDef {
  let cached: Promise<string> | undefined;
  return {
    method: 'GET',
    path: '/openapi.json',
    auth: 'none',
    handle: async (_input, deps) => {
      cached ??= import('../../contract/openapi/build.js').then(({ buildOpenApi }) => JSON.stringify(buildOpenApi(deps.version, deps.baseUrl()), null, 2));
      return { status: 200, text: await cached, contentType: 'application/json; charset=utf-8' };
    },
  };
}
