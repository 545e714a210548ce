import type { Style } from '../output/style.js';
import type { ResponseBody } from '../../contract/index.js';
import { formatClockOffset, formatDuration } from '../../domain/duration.js';
import { keyValue } from '../output/human.js';

export type ClockData = ResponseBody<'Clock'>;
export type AdvanceData = ResponseBody<'ClockAdvance'>;

const offset = formatClockOffset;

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
