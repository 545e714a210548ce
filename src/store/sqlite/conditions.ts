import type { StorageCondition } from '../conditions.js';
import { isBusy, isStorageFull } from '../errors.js';

/**
 * What a SQLite error means for a client (CONTRACT §8): another program holds the write lock past
 * the 5 s wait (busy), or nothing more can be stored (full). SQLite is never away.
 */
export function storageCondition(error: unknown): StorageCondition | null {
  if (isBusy(error)) return 'busy';
  if (isStorageFull(error)) return 'full';
  return null;
}
