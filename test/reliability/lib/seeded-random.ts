/**
 * Seeded randomness for the reliability suite: every random choice a test makes comes from a seed it
 * prints, so a failing run can be replayed with `SVC_RELIABILITY_SEED=<seed>`. (Timing still varies
 * between runs: the seed fixes the choices, not the scheduler of two processes.)
 */

/** mulberry32: a small, fast PRNG with a 32-bit state; returns floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A second, independent stream derived from a seed and a label (one per worker, per round…). */
export function derive(seed: number, ...labels: (string | number)[]): () => number {
  let h = seed >>> 0;
  for (const label of labels) {
    for (const ch of String(label)) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    h = Math.imul(h ^ 0xff, 0x01000193) >>> 0;
  }
  return prng(h);
}

/** The run's seed: `SVC_RELIABILITY_SEED` when set (to replay a failure), otherwise a fresh one. */
export function runSeed(): number {
  const given = process.env.SVC_RELIABILITY_SEED;
  if (given !== undefined && given !== '') {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`SVC_RELIABILITY_SEED must be an integer 0..4294967295, not ${given}`);
    return n;
  }
  return Math.floor(Math.random() * 0xffffffff);
}

/** An integer in [min, max]. */
export const between = (rng: () => number, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
