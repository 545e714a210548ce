import { type Clock, manualClock, systemClock } from '../clock/clock.js';
import type { EmulatorConfig } from '../config/defaults.js';
import { isFiniteNumber, type StoreDb } from '../store/db.js';
import type { StartEmulatorOptions } from './emulator-api.js';
import { clockStartOf } from './start-options.js';

const CLOCK_OFFSET = 'clock_offset_ms';

/** The emulator's time: injected, frozen at a clock start, or the system's with the offset advances left. */
export interface EmulatorClock {
  clock: Clock;
  /**
   * Keeps an advanced system clock's offset across restarts (not an injected or frozen clock's), and
   * tells the other replicas on the database (CONTRACT §12: one clock for the whole sandbox).
   */
  persist(): Promise<void>;
  /**
   * After an advance by `ms`: adds `ms` to the STORED offset (under its row lock) rather than writing
   * this replica's, so that advances through two replicas at once compose (60 s + 60 s = 120 s, not
   * 60 s); this replica's clock then jumps to the sum. True when it jumped (another replica's advance
   * came meanwhile: what fell due in between is for the scheduler to look at).
   */
  persistAdvance(ms: number): Promise<boolean>;
  /** Another replica moved the shared clock: this one's jumps to the stored offset. */
  reload(): Promise<void>;
}

export async function openClock(db: StoreDb, config: EmulatorConfig, options: StartEmulatorOptions): Promise<EmulatorClock> {
  const start = clockStartOf(options.clockStart ?? config.clockStart);
  const persisted = !options.clock && start === null;
  const stored = persisted ? await db.meta.getMeta(CLOCK_OFFSET, isFiniteNumber) : undefined;
  const clock = options.clock ?? (start !== null ? manualClock(start) : systemClock(stored ?? 0));
  return {
    clock,
    persist: async () => {
      if (!persisted) return;
      await db.meta.setMeta(CLOCK_OFFSET, clock.offset());
      // After the write committed, before the advance answers: a replica told reads the new offset.
      await db.publish('clock');
    },
    persistAdvance: async (ms) => {
      if (!persisted) return false;
      const stored = await db.transaction(async (tx) => {
        await tx.meta.lockMeta(CLOCK_OFFSET);
        const next = ((await tx.meta.getMeta(CLOCK_OFFSET, isFiniteNumber)) ?? 0) + ms;
        await tx.meta.setMeta(CLOCK_OFFSET, next);
        // Once committed, before the advance answers: a replica told reads the new offset.
        await tx.publish('clock');
        return next;
      });
      if (stored === clock.offset()) return false;
      clock.jump?.(clock.now() + (stored - clock.offset()));
      return true;
    },
    reload: async () => {
      const offset = await db.meta.getMeta(CLOCK_OFFSET, isFiniteNumber);
      // Backwards too (a restore elsewhere returned to a snapshot's time), as a restore here does.
      if (persisted && offset !== undefined && offset !== clock.offset()) clock.jump?.(clock.now() + (offset - clock.offset()));
    },
  };
}
