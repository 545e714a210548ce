import type { IncomingHttpHeaders } from 'node:http';
import { parseKey } from '../domain/keys.js';
import type { StoreDb } from '../store/db.js';
import { ApiError } from './api-error.js';
import type { Auth, Principal } from './route.js';

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * CONTRACT §1–2: a missing, malformed or unknown key is 401; a key of the wrong kind for the
 * endpoint is 403 forbidden_key_type. The environment comes from the key, never from the request.
 */
/**
 * Known keys, by the key itself: a hit skips hashing and the lookup. Keys are never changed or
 * deleted except by a reset, which clears the cache; only valid keys are cached.
 */
export type KeyCache = Map<string, Principal>;

export async function authenticate(headers: IncomingHttpHeaders, db: StoreDb, required: Exclude<Auth, 'none'>, cache?: KeyCache): Promise<Principal> {
  const header = headers.authorization;
  if (!header) throw unauthorized('Missing Authorization header; send "Authorization: Bearer <API key>".');
  const token = BEARER.exec(header)?.[1];
  if (!token) throw unauthorized('The Authorization header must be "Bearer <API key>".');
  let principal = cache?.get(token);
  if (!principal) {
    const parsed = parseKey(token);
    if (!parsed) throw unauthorized('The API key is malformed: expected pt_test_, pt_live_, test_ or live_ followed by 32 letters and digits.');
    const row = await db.keys.findKey(token);
    if (!row) throw unauthorized('The API key is not valid.');
    principal = { kind: row.kind, environment: row.environment, partnerId: row.partner_id, merchantId: row.merchant_id };
    if (cache && cache.size < 10_000) cache.set(token, principal);
  }
  if (required !== 'either' && principal.kind !== required) {
    throw new ApiError(
      403,
      'forbidden_key_type',
      required === 'partner'
        ? 'This endpoint needs a partner key (pt_test_… or pt_live_…); a merchant key was sent.'
        : 'This endpoint needs a merchant key (test_… or live_…); a partner key was sent.',
    );
  }
  return principal;
}

const unauthorized = (message: string) => new ApiError(401, 'unauthorized', message);
