/**
 * Whether a failed database call means the database cannot be reached or the connection was lost
 * (CONTRACT §12 "The database goes away": 503 `database_unavailable`, health degraded, try again),
 * rather than a fault of the statement itself (a constraint, a syntax error: those are svc's or the
 * caller's, and retrying them changes nothing).
 */

/** Socket errors of a server that is down, unreachable or went away mid-conversation. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/**
 * SQLSTATEs of a server that is going away or will not take us now: 57P01 admin_shutdown (a fast
 * stop, pg_terminate_backend), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or
 * shutting down), 53300 too_many_connections. Class 08 (connection exceptions) is matched whole.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * pg's and pg-pool's own errors carry no code, only these messages (pg/lib/client.js,
 * pg-pool/index.js): a connection that ended under a query, a connect that timed out (at the server
 * or waiting for the pool), and a client that already lost its connection.
 */
const LOST_CONNECTION = [
  /^Connection terminated unexpectedly$/,
  /^Connection terminated due to connection timeout$/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailable(error, 0);
}

/** Follows `cause` and an AggregateError's `errors` (Node's connect to a name with several addresses), a few levels deep. */
function unavailable(error: unknown, depth: number): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined) {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
  if (LOST_CONNECTION.some((pattern) => pattern.test(message))) return true;
  if ('errors' in error && Array.isArray(error.errors) && error.errors.some((e) => unavailable(e, depth + 1))) return true;
  return 'cause' in error && unavailable(error.cause, depth + 1);
}
