import type { IncomingMessage } from 'node:http';
import { ApiError } from '../api-error.js';
import { checkJsonContentType, hasBody, parseJsonObject, parseJsonRpcBody, readBody } from '../http/body.js';
import { checkForbiddenFields } from '../http/fields.js';
import { keptBody } from '../journal/journal.js';
import type { RouteDef } from '../route.js';
import { loadSchemas, schemasLoaded } from '../validation/schemas.js';
import type { Stage } from './compose.js';
import type { RoutedContext } from './context.js';
import { warnUnknownFields } from './validation.js';

/** A slow sender gets a contract-shaped 408 after this long, not a dropped socket. */
const BODY_TIMEOUT_MS = 10_000;

/**
 * The body (CONTRACT §2, §8): 415 for another content type, 413 over 1 MiB or 10,000 JSON values
 * (refused before it is materialised), 400 `invalid_json` for anything but an object, then
 * `environment` and fee fields (400). A route without a body ignores one (clients often send
 * `{}`), after the same checks, with a `Warning` naming its fields.
 */
export const bodyLimits: Stage<RoutedContext> = async (ctx, next) => {
  const { route } = ctx;
  // The first request of a route that validates loads zod (./validation/schemas.ts).
  if (route.validated && !schemasLoaded()) await loadSchemas();
  const body = await readRouteBody(ctx.req, route, ctx);
  if (body !== undefined && !Array.isArray(body)) checkForbiddenFields(body, route.rejectFeeFields === true);
  if (!route.body && body !== undefined) warnUnknownFields(ctx, Object.keys(body));
  else ctx.body = body;
  return next();
};

/**
 * The body as a JSON object, or undefined when a route without a body schema got none. A body sent
 * to such a route follows the same rules as any body (CONTRACT §2): 415, 413, 400; empty is fine.
 */
async function readRouteBody(
  req: IncomingMessage,
  route: RouteDef,
  ctx: RoutedContext,
): Promise<Record<string, unknown> | Record<string, unknown>[] | undefined> {
  const present = hasBody(req);
  if (!present) {
    if (!route.body) return undefined;
    if (route.optionalBody) return {};
    throw new ApiError(400, 'invalid_json', 'The request body is empty; send a JSON object.');
  }
  checkJsonContentType(req);
  const raw = await readBody(req, BODY_TIMEOUT_MS);
  if (ctx.record) ctx.record.requestBody = keptBody(raw, ctx.record);
  if (!route.body && raw.length === 0) return undefined;
  return route.jsonRpc ? parseJsonRpcBody(raw) : parseJsonObject(raw);
}
