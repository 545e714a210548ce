import { type Clock, manualClock, systemClock } from '../clock/clock.js';
import type { EmulatorConfig } from '../config/defaults.js';
import type { ClockStore } from '../store/clock-store.js';
import type { StartEmulatorOptions } from './emulator-api.js';
import { clockStartOf } from './start-options.js';

/** The emulator's time: injected, frozen at a clock start, or the system's with the offset advances left. */
export interface EmulatorClock {
  clock: Clock;
  /**
   * Stores the clock's offset (not an injected clock's, nor one process's frozen clock's), and tells
   * the other replicas on the database (CONTRACT §12: one clock for the whole sandbox).
   */
  persist(): Promise<void>;
  /**
   * After an advance by `ms`: adds `ms` to the STORED offset (under its row lock) rather than writing
   * this replica's, so that advances through two replicas at once compose (60 s + 60 s = 120 s, not
   * 60 s); this replica's clock then jumps to the sum. True when it jumped (another replica's advance
   * came meanwhile: what fell due in between is for the scheduler to look at).
   */
  persistAdvance(ms: number): Promise<boolean>;
  /** Another replica moved the shared clock: this one's jumps to the stored offset. True when it moved. */
  reload(): Promise<boolean>;
}

/**
 * The clock as the store keeps it (store/clock-store.ts): `--clock-start` freezes it; where replicas
 * share the database, the sandbox's start (the first replica's) is everyone's.
 */
export async function openClock(store: ClockStore, config: EmulatorConfig, options: StartEmulatorOptions): Promise<EmulatorClock> {
  const start = clockStartOf(options.clockStart ?? config.clockStart);
  const opened = options.clock ? null : await store.open(start);
  const clock = options.clock ?? (opened?.start != null ? manualClock(opened.start) : systemClock(opened?.offset ?? 0));
  if (opened?.start != null && opened.offset) clock.jump?.(opened.start + opened.offset);
  const persisted = opened?.persisted ?? false;
  /** Puts this clock at the stored offset (backwards too: a restore elsewhere returned to a snapshot's time). */
  const follow = (offset: number): boolean => {
    if (offset === clock.offset()) return false;
    clock.jump?.(clock.now() + (offset - clock.offset()));
    return true;
  };
  return {
    clock,
    persist: async () => {
      if (persisted) await store.write(clock.offset());
    },
    persistAdvance: async (ms) => persisted && follow(await store.advance(ms)),
    reload: async () => {
      if (!persisted) return false;
      const { offset } = await store.read();
      return offset !== undefined && follow(offset);
    },
  };
}
