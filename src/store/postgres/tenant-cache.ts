import type { Repos, Tx } from '../db.js';

/**
 * The rows every create and every delivery reads and few requests write, kept in memory on
 * PostgreSQL: a merchant, a partner's webhook configuration, its listener registration. Three of a
 * create's eleven statements, and three of every event an expiry writes, were these reads, and a
 * statement is a round trip here (docs/performance.md "The PostgreSQL store as a team feels it").
 *
 * A cache of the store, as ARCHITECTURE habit 13 wants it: every write of these rows through this
 * process forgets all of it (when it runs, and again when its transaction ended), and replaces the
 * sandbox's version in its transaction (the `tenants` change, notify.ts); another replica forgets its
 * own the moment it reads a version other than the one its cache was filled at, which it does before
 * every request and every claim (kit.ts `sandboxVersion`, server/freshness.ts). So a change one replica
 * acknowledged is what the next request to any replica reads (CONTRACT §12). A transaction that wrote
 * reads past the cache: it must see its own writes.
 */
const CACHED_READS = {
  merchants: ['findMerchant'],
  webhookConfigs: ['findWebhookConfig'],
  listeners: ['findListener', 'activeListeners'],
} as const satisfies { [R in keyof Repos]?: readonly (keyof Repos[R])[] };

/** The writes of those rows (the listeners repository also writes deliveries, which no cache holds). */
const WRITES = {
  merchants: ['insertMerchant', 'setIntegrationStatus', 'setMerchantNetworks'],
  webhookConfigs: ['saveWebhookConfig'],
  listeners: ['saveListener', 'touchListener'],
} as const satisfies { [R in keyof typeof CACHED_READS]: readonly (keyof Repos[R])[] };

type CachedRepo = keyof typeof CACHED_READS;

export class TenantCache {
  private readonly entries = new Map<string, unknown>();
  /** Moves on every forget: a read that started before it must not store what it found. */
  private generation = 0;
  /** The sandbox's version the cache was filled at (undefined: not read yet). */
  private version: string | null | undefined;

  forget(): void {
    this.entries.clear();
    this.generation++;
  }

  /** The sandbox's version was read: another replica's change of these rows (or any cached piece) forgets them. */
  seen(version: string | null): void {
    if (version !== this.version) this.forget();
    this.version = version;
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

/** `repos` with the cached reads through `cache`, and the writes of their rows forgetting it and telling the others. */
export function withTenantCache(repos: Repos, cache: TenantCache, scope: CacheScope): Repos {
  const out: Record<string, unknown> = { ...repos };
  for (const name of Object.keys(CACHED_READS) as CachedRepo[]) {
    const reads: readonly string[] = CACHED_READS[name];
    const writes: readonly string[] = WRITES[name];
    const wrapped: Record<string, unknown> = { ...repos[name] };
    for (const [fn, call] of Object.entries(repos[name]) as [string, (...args: unknown[]) => Promise<unknown>][]) {
      if (reads.includes(fn)) {
        wrapped[fn] = (...args: unknown[]) => (scope.wrote ? call(...args) : cache.read(`${name}.${fn}${JSON.stringify(args)}`, () => call(...args)));
      } else if (writes.includes(fn)) {
        wrapped[fn] = async (...args: unknown[]) => {
          const first = !scope.wrote;
          scope.wrote = scope.inTransaction;
          cache.forget();
          const result = await call(...args);
          cache.forget();
          // Once per transaction (in it: the others hear it once it committed), at once on the pool.
          if (first || !scope.inTransaction) await scope.publish('tenants');
          return result;
        };
      }
    }
    out[name] = wrapped;
  }
  return out as Repos;
}
