import { unknownFieldsOf } from '../http/fields.js';
import { refuseUnstorableText } from '../validation/storable-text.js';
import { parseWith } from '../validation/parse.js';
import type { Stage } from './compose.js';
import type { InputContext, RoutedContext } from './context.js';

/**
 * The handler's input, with the query parsed (400 `validation_failed` naming the parameter).
 * Operations get their query parsed, or none (nothing is built); pages the raw search parameters.
 */
export function query(routed: (ctx: InputContext) => void | Promise<void>): Stage<RoutedContext> {
  return (ctx) => {
    const { route } = ctx;
    const input = {
      params: ctx.params,
      query: route.query
        ? parseWith(route.query, Object.fromEntries(new URLSearchParams(ctx.search)))
        : route.operationId
          ? undefined
          : new URLSearchParams(ctx.search),
      body: ctx.body,
      headers: ctx.req.headers,
      requestId: ctx.requestId,
      remoteAddress: ctx.req.socket.remoteAddress,
      ...(ctx.principal ? { principal: ctx.principal } : {}),
    };
    return routed(Object.assign(ctx, { input }));
  };
}

/**
 * The body against the route's schema (400 `validation_failed` naming the field; a field holding
 * U+0000 or a lone surrogate too, validation/storable-text.ts); unknown fields get a `Warning`.
 */
export const validation: Stage<InputContext> = (ctx, next) => {
  const { route, body } = ctx;
  const schema = route.body;
  if (schema && body !== undefined) {
    if (Array.isArray(body)) {
      // A JSON-RPC batch: each request alone (`param` names its place, `[0].method`).
      ctx.input.body = body.map((call, i) => parseWith(schema, call, `[${i}]`));
      refuseUnstorableText(ctx.input.body);
    } else {
      ctx.input.body = parseWith(schema, body);
      refuseUnstorableText(ctx.input.body);
      warnUnknownFields(ctx, unknownFieldsOf(schema, body));
    }
  }
  return next();
};

/** Unknown fields are ignored (CONTRACT §2), with a `Warning` response header and a warning event naming them. */
export function warnUnknownFields(ctx: RoutedContext, unknown: string[]): void {
  if (!unknown.length) return;
  const list = unknown.join(', ');
  // Header values must be printable ASCII; field names come from the client and may not be.
  ctx.res.setHeader('Warning', `299 svc-emulator "Unknown fields ignored: ${list.replace(/[^\x20-\x7e]|"/g, '?').slice(0, 200)}"`);
  ctx.deps.emit({ type: 'warning', requestId: ctx.requestId, message: `${ctx.route.method} ${ctx.route.path}: unknown fields ignored: ${list}` });
}
