const UNIT_MS = new Map([
  ['ms', 1],
  ['s', 1000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
]);

/**
 * Durations as people write them: `90s`, `15m`, `2h`, `1d`, `500ms`, or a bare number of seconds.
 * Returns milliseconds, or null when the text is not a duration.
 */
export function parseDuration(input: string | number): number | null {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? Math.round(input * 1000) : null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(input);
  if (!m) return null;
  const n = Number(m[1]);
  const factor = UNIT_MS.get(m[2] ?? 's');
  if (factor === undefined) return null; // the pattern admits only the units below
  return Math.round(n * factor);
}

/** The shortest faithful spelling of a duration: `5s`, `5m`, `2h`, `1d`, `1h30m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('');
}

/**
 * How far the emulator's clock is from real time, as `svc time` says it: `+1h1m ahead of real time`,
 * `-5m behind real time`, or `none (real time)`. The dashboard's clock view says the same.
 */
export function formatClockOffset(seconds: number): string {
  if (seconds === 0) return 'none (real time)';
  const text = formatDuration(Math.abs(seconds) * 1000);
  return seconds > 0 ? `+${text} ahead of real time` : `-${text} behind real time`;
}
