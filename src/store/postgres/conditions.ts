import type { StorageCondition } from '../conditions.js';
import { isDatabaseUnavailable } from './unavailable.js';

/** What a PostgreSQL error means for a client (../conditions.ts): the server away, or a lock held past the wait. */
export function storageCondition(error: unknown): StorageCondition | null {
  if (isDatabaseUnavailable(error)) return 'unavailable';
  return null;
}
