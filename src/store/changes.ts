/**
 * What one process tells the others sharing its database (CONTRACT §12, ARCHITECTURE habit 13):
 * "the clock moved", "faults changed", "keys changed", "deliveries are due", "a listener's result
 * came". Shared state lives in the store; what a process keeps in memory is a cache, and this is how
 * it learns the cache is stale. `journal` and `attempts` feed the live views instead
 * (server/shared-views.ts): rows just written.
 *
 * Engine-neutral: on SQLite (one process) there is nobody to tell, so publishing costs nothing and
 * no subscriber is ever called; PostgreSQL's is LISTEN/NOTIFY (./postgres/notify.ts).
 */

/** The kinds of change, each a cache or a wake-up somewhere in the server. */
/** `tenants`: merchants, webhook configurations or listener registrations (postgres/tenant-cache.ts). */
export type ChangeTopic = 'clock' | 'faults' | 'chaos' | 'keys' | 'tenants' | 'deliveries' | 'listeners' | 'journal' | 'attempts';

/** A topic's small payload (ids, never rows): PostgreSQL's NOTIFY carries at most 8000 bytes. */
export type ChangeData = Record<string, string | number | boolean | null>;

export interface Change {
  data: ChangeData;
  /**
   * True when the channel came back after losing its connection: what was said meanwhile is lost,
   * so the subscriber reloads everything it caches (`data` is then empty).
   */
  reconnected: boolean;
}

export interface Changes {
  /**
   * Calls `fn` for each change of `topic` made by ANOTHER process (this one's own are not echoed:
   * it already acted on them). Returns the unsubscribe function.
   */
  subscribe(topic: ChangeTopic, fn: (change: Change) => void): () => void;
  close(): Promise<void>;
}

/** SQLite's: one process, nothing to hear. */
export const noChanges: Changes = {
  subscribe: () => () => {},
  close: async () => {},
};

/** SQLite's publish: nothing to tell, and nothing to wait for. */
export const publishNothing = (_topic: ChangeTopic, _data?: ChangeData): Promise<void> => Promise.resolve();
