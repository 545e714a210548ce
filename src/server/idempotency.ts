import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from './api-error.js';
import type { Principal } from './route.js';
import { sha256Hex } from '../domain/sha256.js';

/** Only successful creates are remembered, for 24 hours of emulator time (CONTRACT §2). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

/** The `Idempotency-Key` header of a create: required, 1–255 characters. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string {
  const raw = headers['idempotency-key'];
  // Node joins repeated headers with ", " for unknown names; an array only appears for a few.
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (value === undefined) {
    throw new ApiError(400, 'idempotency_key_required', 'This create needs an Idempotency-Key header (a fresh UUID per create attempt is a good choice).');
  }
  if (value.length === 0 || value.trim().length === 0) {
    throw new ApiError(400, 'idempotency_key_invalid', 'The Idempotency-Key header is empty.');
  }
  if (value.length > 255) {
    throw new ApiError(400, 'idempotency_key_invalid', `The Idempotency-Key header is ${value.length} characters long; the limit is 255.`);
  }
  return value;
}

function principalId(p: Principal): string {
  return p.kind === 'partner' ? `partner:${p.partnerId}` : `merchant:${p.merchantId}`;
}

/** The scope a key is remembered under: (principal, environment, endpoint, key[, externalTenantId]). */
export function idempotencyScope(p: Principal, endpoint: string, key: string, tenant?: string): string {
  const parts = [principalId(p), p.environment, endpoint, key];
  if (tenant !== undefined) parts.push(tenant);
  return sha256Hex(JSON.stringify(parts));
}

export function fingerprint(canonicalBody: string): string {
  return sha256Hex(canonicalBody);
}

/**
 * Requests currently being served, by (principal, environment, endpoint, key). Registered as soon as
 * the headers are authenticated, so a second request with the same key while the first one's body is
 * still arriving gets 409 idempotency_key_in_progress. The lock ignores externalTenantId, which is
 * only known once the body is read: a deliberate over-approximation that errs on the safe side.
 */
export class InFlight {
  private readonly keys = new Set<string>();

  acquire(p: Principal, endpoint: string, key: string): () => void {
    const id = JSON.stringify([principalId(p), p.environment, endpoint, key]);
    if (this.keys.has(id)) {
      throw new ApiError(409, 'idempotency_key_in_progress', 'A request with this Idempotency-Key is still being processed; retry once it has finished.');
    }
    this.keys.add(id);
    return () => this.keys.delete(id);
  }
}
