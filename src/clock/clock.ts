/**
 * The one clock. Nothing else reads Date.now(): expiry, retries, idempotency retention and
 * envelope timestamps all take time from here, so `/__emulator/clock/advance` and tests can move it.
 * Only webhook signatures use wall-clock time, because receivers check them against their own clock.
 */
export interface Clock {
  /** Emulator time, in milliseconds since the epoch. */
  now(): number;
  /** Moves emulator time to `ms`. Time never goes backwards. */
  set(ms: number): void;
  /** How far emulator time is ahead of the wall clock, in milliseconds (persisted across restarts). */
  offset(): number;
  /**
   * Puts emulator time at `ms`, backwards too: a snapshot restore returns to the snapshot's time.
   * Optional for your own clocks; without it a restore can only move time forward.
   */
  jump?(ms: number): void;
}

/** Wall-clock time plus an offset that `advance` grows: time keeps flowing between advances. */
export function systemClock(initialOffsetMs = 0): Clock {
  let offsetMs = initialOffsetMs;
  return {
    now: () => Date.now() + offsetMs,
    set(ms) {
      const delta = ms - (Date.now() + offsetMs);
      if (delta > 0) offsetMs += delta;
    },
    offset: () => offsetMs,
    jump(ms) {
      offsetMs = ms - Date.now();
    },
  };
}

/** A clock that only moves when told to: for tests that need exact timestamps. */
export function manualClock(start: number | Date = Date.UTC(2030, 0, 1)): Clock {
  let t = typeof start === 'number' ? start : start.getTime();
  return {
    now: () => t,
    set(ms) {
      if (ms > t) t = ms;
    },
    offset: () => t - Date.now(),
    jump(ms) {
      t = ms;
    },
  };
}

/** Real seconds since the epoch, for signature timestamps only. */
export function wallClockSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
