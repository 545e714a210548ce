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
  /**
   * Moves emulator time forward by exactly `ms`, whatever the wall clock did meanwhile. Optional for
   * your own clocks; without it an advance sets `now() + ms`, which loses the wall time a slow
   * advance spent between reading the clock and setting it.
   */
  advance?(ms: number): void;
}

/** Moves `clock` forward by `ms` (its own `advance` when it has one). */
export function advanceBy(clock: Clock, ms: number): void {
  if (ms <= 0) return;
  if (clock.advance) clock.advance(ms);
  else clock.set(clock.now() + ms);
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
    // No wall-clock read: the offset grows by exactly what was asked (issue 23: an advance of 3600 s
    // that took a second of wall time to run its due work grew the offset by 3599 s).
    advance(ms) {
      if (ms > 0) offsetMs += ms;
    },
  };
}

/**
 * A clock that only moves when told to: for tests that need exact timestamps. Its `offset()` is how
 * far it was moved from `start`, not from the wall clock: a frozen clock has no relation to wall time,
 * and CONTRACT §9 promises byte-identical answers for the same seed and clock start (issue 23:
 * `offsetSeconds` differed by one between two runs because it read Date.now()).
 */
export function manualClock(start: number | Date = Date.UTC(2030, 0, 1)): Clock {
  const origin = typeof start === 'number' ? start : start.getTime();
  let t = origin;
  return {
    now: () => t,
    set(ms) {
      if (ms > t) t = ms;
    },
    offset: () => t - origin,
    jump(ms) {
      t = ms;
    },
    advance(ms) {
      if (ms > 0) t += ms;
    },
  };
}

/** Real seconds since the epoch, for signature timestamps only. */
export function wallClockSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
