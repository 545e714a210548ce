import type { Repos, Tx } from '../db.js';

/**
 * The rows every create and every delivery reads and few requests write, kept in memory on
 * PostgreSQL (issue 27): a merchant, a partner's webhook configuration, its listener registration.
 * Each read there was a round trip, and on PostgreSQL the round trip, not the SQL, is the cost
 * (docs/performance.md "The PostgreSQL store"). SQLite reads them in microseconds and keeps none.
 *
 * Kept fresh as ARCHITECTURE habit 13 asks: every write through these repositories forgets all of
 * it (when it runs, and again when its transaction ends) and tells the other replicas through the
 * change channel (`tenants`, in the transaction, so they hear it once it committed); they forget
 * theirs when they hear it, when a reset or restore tells them `keys`, and when their channel
 * reconnects. A replica may read what another just replaced until the notification reaches it
 * (milliseconds), as with the keys it caches. A transaction that wrote reads past the cache: it must
 * see its own writes.
 */
export const CACHED_READS = {
  merchants: ['findMerchant'],
  webhookConfigs: ['findWebhookConfig'],
  listeners: ['findListener', 'activeListeners'],
} as const satisfies { [R in keyof Repos]?: readonly (keyof Repos[R])[] };

type CachedRepo = keyof typeof CACHED_READS;

export class ReadCache {
  private readonly entries = new Map<string, unknown>();
  /** Moves on every forget: a read that started before it must not store what it found. */
  private generation = 0;

  forget(): void {
    this.entries.clear();
    this.generation++;
  }

  async read<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.entries.has(key)) return copy(this.entries.get(key) as T);
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation) this.entries.set(key, value);
    return copy(value);
  }
}

/** Rows are flat objects (or lists of them): a caller that changes one does not change the cache. */
function copy<T>(value: T): T {
  if (Array.isArray(value)) return value.map((row) => ({ ...row })) as T;
  return value && typeof value === 'object' ? { ...value } : value;
}

/** Where the repositories run: the pool (each write commits, then is told) or one transaction. */
export interface CacheScope {
  /** Tells the other replicas (in the transaction, or at once on the pool). */
  publish: Tx['publish'];
  inTransaction: boolean;
  /** Set by a write in this transaction: its reads then go to the database. */
  wrote?: boolean;
}

/** `repos` with CACHED_READS read through `cache`, and every other function of those repositories a write. */
export function withReadCache(repos: Repos, cache: ReadCache, scope: CacheScope): Repos {
  const out: Record<string, unknown> = { ...repos };
  for (const name of Object.keys(CACHED_READS) as CachedRepo[]) {
    const reads: readonly string[] = CACHED_READS[name];
    const wrapped: Record<string, unknown> = {};
    for (const [fn, call] of Object.entries(repos[name]) as [string, (...args: unknown[]) => Promise<unknown>][]) {
      wrapped[fn] = reads.includes(fn)
        ? (...args: unknown[]) => (scope.wrote ? call(...args) : cache.read(`${name}.${fn}${JSON.stringify(args)}`, () => call(...args)))
        : async (...args: unknown[]) => {
            const first = !scope.wrote;
            scope.wrote = scope.inTransaction;
            cache.forget();
            const result = await call(...args);
            cache.forget();
            // Once per transaction: PostgreSQL folds equal notifications of one transaction anyway.
            if (first || !scope.inTransaction) await scope.publish('tenants');
            return result;
          };
    }
    out[name] = wrapped;
  }
  return out as Repos;
}
