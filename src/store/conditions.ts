/**
 * What a failed database call means for a client, whichever engine (CONTRACT §8, §12), each engine
 * classifying its own driver's errors (`StoreDb.condition`):
 * - `busy`: another program holds a lock past the 5 s wait: 503 `database_busy`, nothing changed;
 * - `unavailable`: the database cannot be reached or the connection was lost: 503
 *   `database_unavailable` (a write may or may not have been stored);
 * - `full`: nothing more can be stored: 507 `storage_full`.
 */
export type StorageCondition = 'busy' | 'unavailable' | 'full';
