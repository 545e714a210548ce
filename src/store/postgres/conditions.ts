import type { StorageCondition } from '../conditions.js';
import { WritesBusy } from './gate.js';
import { sqlState } from './handle.js';
import { isDatabaseUnavailable } from './unavailable.js';

/**
 * SQLSTATEs of a lock another session holds past the wait: 55P03 lock_not_available (connect.ts
 * `lock_timeout`), 57014 query_canceled (a statement timeout), 40P01 deadlock_detected.
 */
const BUSY_STATES = new Set(['55P03', '57014', '40P01']);

/** What a PostgreSQL error means for a client (../conditions.ts): the server away, or a lock held past the wait. */
export function storageCondition(error: unknown): StorageCondition | null {
  if (isDatabaseUnavailable(error)) return 'unavailable';
  if (error instanceof WritesBusy || BUSY_STATES.has(sqlState(error) ?? '')) return 'busy';
  return null;
}
