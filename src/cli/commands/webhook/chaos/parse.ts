import { UsageError } from '../../../../errors.js';
import type { ChaosSpec } from '../../../../contract/testing-types.js';

/** What `svc webhook listen --chaos duplicate,reorder,…` turns on, and how much. */
export const LISTEN_CHAOS: Record<string, ChaosSpec> = {
  duplicate: { duplicate: 0.5 },
  reorder: { reorder: true },
  delay: { delayMs: [200, 2000] },
  'bad-signature': { badSignature: 0.25 },
  'stale-timestamp': { staleTimestamp: 0.25 },
};

export function parseListenChaos(value: string | undefined, seed: number | undefined): ChaosSpec | null {
  if (value === undefined) return null;
  const spec: ChaosSpec = seed === undefined ? {} : { seed };
  for (const kind of value
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)) {
    const add = LISTEN_CHAOS[kind];
    if (!add) throw new UsageError(`--chaos: unknown kind "${kind}"; use ${Object.keys(LISTEN_CHAOS).join(', ')}`, '--chaos');
    Object.assign(spec, add);
  }
  if (Object.keys(spec).length === (seed === undefined ? 0 : 1))
    throw new UsageError(`--chaos needs at least one of ${Object.keys(LISTEN_CHAOS).join(', ')}`, '--chaos');
  return spec;
}

/** `--delay 100-500` → [100, 500]; one number is a fixed delay. */
export function parseDelay(value: string | undefined): [number, number] | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+)(?:-(\d+))?$/.exec(value.trim());
  if (!m) throw new UsageError(`--delay must be milliseconds, or a range such as 100-500, not "${value}"`, '--delay');
  const min = Number(m[1]);
  return [min, m[2] === undefined ? min : Number(m[2])];
}

export function parseProbability(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const p = Number(value);
  if (!/^\d*\.?\d+$/.test(value.trim()) || !(p >= 0 && p <= 1))
    throw new UsageError(`${flag} must be a probability from 0 to 1, such as 0.2, not "${value}"`, flag);
  return p;
}
