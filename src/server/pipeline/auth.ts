import { ApiError } from '../api-error.js';
import { authenticate } from '../auth.js';
import type { Stage } from './compose.js';
import type { RoutedContext } from './context.js';

/**
 * The API key (CONTRACT §1, §2): 401 `unauthorized` for a missing or unknown one, 403
 * `forbidden_key_type` for the other kind, and 403 `test_mode_only` for a live key on a test helper
 * (§6). The journal learns who called, refused or not.
 */
export const auth: Stage<RoutedContext> = async (ctx, next) => {
  const { route, deps } = ctx;
  const principal = route.auth === 'none' ? null : await authenticate(ctx.req.headers, deps.db, route.auth, deps.keyCache);
  ctx.principal = principal;
  if (ctx.record) ctx.record.principal = principal;
  if (route.testOnly && principal?.environment === 'live') {
    throw new ApiError(403, 'test_mode_only', 'Test helpers only work with test keys.');
  }
  return next();
};
