import type { Environment } from '../contract/enums.js';
import type { ChaosSpec } from '../contract/testing-types.js';
import { seededRandom, type Random } from '../domain/random.js';

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

/**
 * The chaos in force, per partner and environment, held in memory: a test sets it, and it ends with
 * the emulator (or `DELETE`). Each decision draws from the entry's seeded stream, in the order the
 * attempts start.
 */
export class WebhookChaos {
  protected readonly entries = new Map<string, Entry>();

  set(partnerId: string, environment: Environment, spec: ChaosSpec): ChaosSpec {
    this.entries.set(`${partnerId}:${environment}`, { spec: { ...spec }, random: seededRandom(spec.seed ?? 0, 0) });
    return spec;
  }

  get(partnerId: string, environment: Environment): ChaosSpec | null {
    return this.entries.get(`${partnerId}:${environment}`)?.spec ?? null;
  }

  clear(partnerId: string, environment: Environment): boolean {
    return this.entries.delete(`${partnerId}:${environment}`);
  }

  /** Resolves once set and clear are stored (./shared-chaos.ts, on PostgreSQL); in memory, at once. */
  settled(): Promise<void> {
    return Promise.resolve();
  }

  /** The chaos for the next attempt of this partner's delivery; null when none is in force. */
  decide(partnerId: string, environment: Environment): ChaosDecision | null {
    const entry = this.entries.get(`${partnerId}:${environment}`);
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
