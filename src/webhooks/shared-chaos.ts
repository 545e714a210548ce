import type { Environment } from '../contract/enums.js';
import type { ChaosSpec } from '../contract/testing-types.js';
import { seededRandom } from '../domain/random.js';
import type { StoreDb } from '../store/db.js';
import { WebhookChaos } from './chaos.js';
import { WriteBehindMeta } from '../store/shared-value.js';

/** Where the chaos in force lives on a shared database (meta, JSON by `partner:environment`). */
const META_KEY = 'webhook_chaos';

type Stored = Record<string, ChaosSpec>;
const isStored = (value: unknown): value is Stored =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'object' && v !== null);

/**
 * Webhook chaos of a replica on PostgreSQL (CONTRACT §12: chaos is shared): memory is the cache each
 * attempt reads, the store holds what is in force, reloaded on a `chaos` notification. set and clear
 * stay synchronous (written behind: src/store/write-behind-meta.ts). Each replica
 * draws its decisions from its own seeded stream: the same seed gives the same decisions per
 * replica, not one sequence across the cluster.
 */
export class SharedWebhookChaos extends WebhookChaos {
  private readonly stored: WriteBehindMeta<Stored>;

  constructor(db: StoreDb, onError: (error: unknown) => void) {
    super();
    this.stored = new WriteBehindMeta({ db, key: META_KEY, topic: 'chaos', guard: isStored, empty: () => ({}), cache: (all) => this.cache(all), onError });
  }

  reload(): Promise<void> {
    return this.stored.reload();
  }

  override set(partnerId: string, environment: Environment, spec: ChaosSpec): ChaosSpec {
    const result = super.set(partnerId, environment, spec);
    this.stored.write((all) => ({ ...all, [`${partnerId}:${environment}`]: { ...spec } }));
    return result;
  }

  override clear(partnerId: string, environment: Environment): boolean {
    const had = super.clear(partnerId, environment);
    this.stored.write((all) => Object.fromEntries(Object.entries(all).filter(([key]) => key !== `${partnerId}:${environment}`)));
    return had;
  }

  override settled(): Promise<void> {
    return this.stored.settled();
  }

  /** The stored chaos as this replica's; an entry whose spec did not change keeps its stream. */
  private cache(all: Stored): void {
    for (const key of [...this.entries.keys()]) if (!(key in all)) this.entries.delete(key);
    for (const [key, spec] of Object.entries(all)) {
      const current = this.entries.get(key);
      if (current && JSON.stringify(current.spec) === JSON.stringify(spec)) continue;
      this.entries.set(key, { spec: { ...spec }, random: seededRandom(spec.seed ?? 0, 0) });
    }
  }
}
