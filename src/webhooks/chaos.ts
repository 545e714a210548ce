import type { Environment } from '../contract/enums.js';
import type { ChaosSpec } from '../contract/testing-types.js';
import { seededRandom, type Random } from '../domain/random.js';
import type { SharedValue } from '../store/shared-value.js';

/** What chaos does to one attempt. `kinds` is what it records (`attempts[].chaos`). */
export interface ChaosDecision {
  holdMs: number;
  duplicate: boolean;
  badSignature: boolean;
  staleTimestamp: boolean;
  kinds: string[];
}

export const STALE_SECONDS = 360;
const REORDER_MAX_MS = 1000;

export interface Entry {
  spec: ChaosSpec;
  random: Random;
}

/** The chaos in force as the sandbox stores it, by `partner:environment`. */
export type StoredChaos = Record<string, ChaosSpec>;

/** What a stored value must look like (a file restored from elsewhere may hold anything). */
export const isStoredChaos = (value: unknown): value is StoredChaos =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'object' && v !== null);

/**
 * The chaos in force, per partner and environment: a test sets it, and it ends with the sandbox (or
 * `DELETE`). A value the sandbox shares (CONTRACT §12), kept by the store kit
 * (store/shared-value.ts): this process's memory on SQLite, a row every replica reads on PostgreSQL.
 * Each decision draws from the entry's seeded stream, in the order the attempts start here: the same
 * seed gives the same decisions per process, not one sequence across replicas.
 */
export class WebhookChaos {
  /** The stored value last seen, and each entry's stream (kept while its spec stays the same). */
  private seen: StoredChaos | null = null;
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly stored: SharedValue<StoredChaos>) {}

  /** Sets the chaos; its stream starts again here even when the spec is the one in force. */
  set(partnerId: string, environment: Environment, spec: ChaosSpec): ChaosSpec {
    const key = `${partnerId}:${environment}`;
    this.stored.write((all) => ({ ...all, [key]: { ...spec } }));
    this.entries.delete(key);
    return spec;
  }

  get(partnerId: string, environment: Environment): ChaosSpec | null {
    return this.current().get(`${partnerId}:${environment}`)?.spec ?? null;
  }

  clear(partnerId: string, environment: Environment): boolean {
    const key = `${partnerId}:${environment}`;
    const had = this.current().has(key);
    this.stored.write((all) => Object.fromEntries(Object.entries(all).filter(([k]) => k !== key)));
    return had;
  }

  /** Loads what is stored (another replica changed it). */
  reload(): Promise<void> {
    return this.stored.reload();
  }

  /** Resolves once set and clear are stored (at once in memory). */
  settled(): Promise<void> {
    return this.stored.settled();
  }

  /** The entries in force; an entry whose spec did not change keeps its stream. */
  private current(): Map<string, Entry> {
    const all = this.stored.current;
    if (all === this.seen) return this.entries;
    this.seen = all;
    for (const key of [...this.entries.keys()]) if (!(key in all)) this.entries.delete(key);
    for (const [key, spec] of Object.entries(all)) {
      const entry = this.entries.get(key);
      if (entry && JSON.stringify(entry.spec) === JSON.stringify(spec)) continue;
      this.entries.set(key, { spec: { ...spec }, random: seededRandom(spec.seed ?? 0, 0) });
    }
    return this.entries;
  }

  /** The chaos for the next attempt of this partner's delivery; null when none is in force. */
  decide(partnerId: string, environment: Environment): ChaosDecision | null {
    const entry = this.current().get(`${partnerId}:${environment}`);
    if (!entry) return null;
    const { spec, random } = entry;
    // Every draw is made whatever the probabilities, so that changing one knob does not shift the
    // decisions of the others for the same seed.
    const draws = Array.from({ length: 5 }, () => random.bytes(4).readUInt32BE(0) / 2 ** 32);
    const kinds: string[] = [];
    let holdMs = 0;
    if (spec.delayMs) {
      const [min, max] = spec.delayMs;
      holdMs += Math.round(min + draws[0]! * (max - min));
      kinds.push('delay');
    }
    if (spec.reorder) {
      holdMs += Math.round(draws[1]! * REORDER_MAX_MS);
      kinds.push('reorder');
    }
    const duplicate = draws[2]! < (spec.duplicate ?? 0);
    const badSignature = draws[3]! < (spec.badSignature ?? 0);
    const staleTimestamp = !badSignature && draws[4]! < (spec.staleTimestamp ?? 0);
    if (duplicate) kinds.push('duplicate');
    if (badSignature) kinds.push('bad_signature');
    if (staleTimestamp) kinds.push('stale_timestamp');
    return { holdMs, duplicate, badSignature, staleTimestamp, kinds };
  }
}
