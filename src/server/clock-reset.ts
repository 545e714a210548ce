import type { EmulatorClock } from './emulator-clock.js';

/**
 * Puts the emulator's clock back where it began (`svc time reset`, a reset, `svc dev --reset`): the
 * real time for the system clock (an offset of 0, as if never advanced), its start for a frozen one
 * (`--clock-start`). A clock of the caller's own without `jump` stays where it is: it never goes back.
 * Stored and told like an advance, so that the next start and, on PostgreSQL, every replica follow.
 */
export async function rewindClock(time: EmulatorClock): Promise<void> {
  const { clock } = time;
  clock.jump?.(clock.now() - clock.offset());
  await time.persist();
}
