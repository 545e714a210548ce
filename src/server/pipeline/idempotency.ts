import { canonicalJson } from '../../domain/canonical-json.js';
import { StoreConflictError } from '../../store/conflicts.js';
import { ApiError } from '../api-error.js';
import { sendReplay } from '../http/respond.js';
import { fingerprint, IDEMPOTENCY_RETENTION_MS, idempotencyKeyOf, idempotencyScope, type InFlight } from '../idempotency.js';
import { answer } from './answer.js';
import type { Stage } from './compose.js';
import type { InputContext, RoutedContext } from './context.js';

/**
 * An idempotent create's key (CONTRACT §2), taken as soon as the caller is known and before its
 * body is read: 400 `idempotency_key_required` / `idempotency_key_invalid`, and 409
 * `idempotency_key_in_progress` while another request with the same key is being served. Released
 * once this one is answered.
 */
export function idempotencyLock(inFlight: InFlight): Stage<RoutedContext> {
  return (ctx, next) => {
    const { route, principal } = ctx;
    // Optional keys (test helpers): without the header the request simply acts, like any POST.
    if (!route.idempotent || !principal || (route.idempotent.optional && ctx.req.headers['idempotency-key'] === undefined)) return next();
    const key = idempotencyKeyOf(ctx.req.headers);
    const endpoint = route.idempotent.perPath ? `${route.idempotent.endpoint} ${ctx.path}` : route.idempotent.endpoint;
    const release = inFlight.acquire(principal, endpoint, key);
    ctx.idempotent = { key, endpoint, remember: undefined };
    return holding(next, release);
  };
}

async function holding(next: () => void | Promise<void>, release: () => void): Promise<void> {
  try {
    await next();
  } finally {
    release();
  }
}

/**
 * The same key seen before, within 24 hours of emulator time: the first answer again (200,
 * `Idempotent-Replayed: true`) for the same body, 422 `idempotency_key_reused` for another. Bodies
 * compare as canonical JSON, before validation. The key is looked up before the handler runs, so a
 * replay or a reused key does nothing else (it draws no id: CONTRACT §12, the same seed gives the
 * same ids on every engine). Otherwise the handler's success is remembered in its own transaction
 * (`handler.ts`).
 *
 * Where replicas share the store, another replica's create with the same key may commit between the
 * lookup and this one's: its record then conflicts (store/repos/idempotency.ts), this transaction
 * rolls back (the resource and event with it), and the answer is the winner's, as if it had been
 * found first (before this, the loser of the race answered 500, issue 28).
 */
export const idempotentReplay: Stage<InputContext> = async (ctx, next) => {
  const { idempotent, principal, route, deps } = ctx;
  if (!idempotent || !principal || !route.idempotent) return next();
  // Routes without a body (the confirm and expire helpers) compare as `{}`.
  const body = ctx.body ?? {};
  const tenant = route.idempotent.tenantScoped && !Array.isArray(body) && typeof body.externalTenantId === 'string' ? body.externalTenantId : undefined;
  const scope = idempotencyScope(principal, idempotent.endpoint, idempotent.key, tenant);
  const print = fingerprint(canonicalJson(body));
  const now = deps.clock.now();
  const previous = await deps.db.idempotency.findIdempotent(scope, now);
  if (previous) return replay(ctx, previous, print);
  // The create and the memory of it commit together: a crash cannot keep one without the other.
  idempotent.remember = async (tx, status, text) => {
    if (status >= 200 && status < 300) {
      await tx.idempotency.rememberIdempotent({
        scope,
        fingerprint: print,
        status,
        response: text,
        created_at: now,
        expires_at: now + IDEMPOTENCY_RETENTION_MS,
      });
    }
  };
  try {
    return await next();
  } catch (error) {
    if (!(error instanceof StoreConflictError && error.conflict === 'idempotency_key')) throw error;
    const winner = await deps.db.idempotency.findIdempotent(scope, now).catch(() => undefined);
    if (!winner) throw error;
    return replay(ctx, winner, print);
  }
};

/** A remembered create: its first answer again (200, `Idempotent-Replayed: true`), or 422 for another body. */
function replay(ctx: InputContext, previous: { fingerprint: string; response: string }, print: string): Promise<void> | void {
  if (previous.fingerprint !== print) {
    throw new ApiError(
      422,
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request body; use a fresh key for a different request.',
    );
  }
  if (ctx.record) ctx.record.replayed = true;
  return answer(ctx, () => sendReplay(ctx.res, previous.response), 200);
}
