import type { Style } from '../output/style.js';
import type { ResponseBody } from '../../contract/index.js';
import { formatDuration } from '../../domain/duration.js';
import { keyValue } from '../output/human.js';

export type ClockData = ResponseBody<'Clock'>;
export type AdvanceData = ResponseBody<'ClockAdvance'>;

/** `+1h30m ahead of real time`, or `real time`. */
function offset(seconds: number): string {
  if (seconds === 0) return 'none (real time)';
  const text = formatDuration(Math.abs(seconds) * 1000);
  return seconds > 0 ? `+${text} ahead of real time` : `-${text} behind real time`;
}

export function clockView(c: Style, clock: ClockData): string {
  return keyValue(c, [
    ['now', clock.now],
    ['offset', offset(clock.offsetSeconds)],
  ]);
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function advanceView(c: Style, a: AdvanceData): string {
  return keyValue(c, [
    ['advanced', formatDuration(Math.round(a.advancedSeconds * 1000))],
    ['now', a.now],
    ['offset', offset(a.offsetSeconds)],
    ['ran', `${plural(a.expired, 'expiry', 'expiries')}, ${plural(a.deliveryAttempts, 'delivery attempt', 'delivery attempts')}`],
  ]);
}
