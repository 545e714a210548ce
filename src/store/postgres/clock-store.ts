import { type ClockStore, CLOCK_OFFSET, CLOCK_START, ClockStartDiffers, storedOffset } from '../clock-store.js';
import { isFiniteNumber, type StoreDb } from '../db.js';

/**
 * The sandbox's clock on PostgreSQL (CONTRACT §12: `--clock-start` describes the sandbox, not one
 * replica). The first replica given a clock start stores it (with the offset from there: none yet),
 * under meta's lock so that two first replicas cannot each store their own; every replica then runs
 * a frozen clock at the stored start plus the stored offset, with or without the flag; another
 * start is refused. Without any start stored, the system clock plus the stored offset, as before.
 */
export function sharedClock(db: StoreDb): ClockStore {
  const read = async () => ({
    start: (await db.meta.getMeta(CLOCK_START, isFiniteNumber)) ?? null,
    offset: await db.meta.getMeta(CLOCK_OFFSET, isFiniteNumber),
  });
  return {
    ...storedOffset(db),
    read,
    open: (given) =>
      db.transaction(async (tx) => {
        await tx.meta.lockMeta(CLOCK_START);
        const stored = await tx.meta.getMeta(CLOCK_START, isFiniteNumber);
        if (stored !== undefined && given !== null && stored !== given) throw new ClockStartDiffers(stored, given);
        if (stored === undefined && given !== null) {
          await tx.meta.setMeta(CLOCK_START, given);
          await tx.meta.setMeta(CLOCK_OFFSET, 0);
          await tx.publish('clock');
          return { start: given, offset: 0, persisted: true };
        }
        return { start: stored ?? null, offset: (await tx.meta.getMeta(CLOCK_OFFSET, isFiniteNumber)) ?? 0, persisted: true };
      }),
  };
}
