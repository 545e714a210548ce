// Counts per minute, stacked by category (deliveries by outcome, requests by status class), over the
// last window of emulator time. Each minute's counts are in its data-counts attribute and its title,
// the totals in the legend: what the chart draws can be read back as numbers.
import { h } from './dom.js';
import { figure, legend, linear, s, ticks } from './svg.js';

const MINUTE = 60_000;
const HEIGHT = 150;
const PLOT_TOP = 18;
const PLOT_BOTTOM = 126;

/** Buckets of `items` by minute of `timeOf(item)` in the `minutes` ending at `end`, by `seriesOf(item)`. */
export function perMinute(items, { end, minutes, series, timeOf, seriesOf }) {
  const last = Math.floor(end / MINUTE) * MINUTE;
  const first = last - (minutes - 1) * MINUTE;
  const buckets = Array.from({ length: minutes }, (_, i) => ({ start: first + i * MINUTE, counts: Object.fromEntries(series.map((x) => [x.key, 0])) }));
  for (const item of items) {
    const t = Date.parse(timeOf(item));
    if (!(t >= first && t < last + MINUTE)) continue;
    const key = seriesOf(item);
    if (key in buckets[0].counts) buckets[Math.floor((t - first) / MINUTE)].counts[key]++;
  }
  return buckets;
}

/**
 * A stacked bar chart of `buckets` (from perMinute). Bars are placed in percent of the width, so the
 * chart fills its card at any size without scaling its text.
 */
export function minuteChart({ label, noun, series, buckets, className }) {
  const totals = Object.fromEntries(series.map((x) => [x.key, buckets.reduce((n, b) => n + b.counts[x.key], 0)]));
  const total = Object.values(totals).reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...buckets.map((b) => series.reduce((n, x) => n + b.counts[x.key], 0)));
  const yTicks = ticks(max, 3);
  const y = linear(0, yTicks.at(-1), PLOT_BOTTOM, PLOT_TOP);
  const slot = 100 / buckets.length;
  const hhmm = (t) => new Date(t).toISOString().slice(11, 16);
  const svg = s(
    'svg',
    { class: 'minute-chart', width: '100%', height: HEIGHT },
    yTicks.map((v) =>
      s(
        'g',
        { class: 'grid' },
        s('line', { x1: '0%', x2: '100%', y1: y(v), y2: y(v) }),
        v > 0 ? s('text', { x: '0%', y: y(v) - 3, class: 'tick' }, String(v)) : null,
      ),
    ),
    buckets.map((b, i) => {
      let base = PLOT_BOTTOM;
      const words = series.filter((x) => b.counts[x.key]).map((x) => `${b.counts[x.key]} ${x.label}`);
      return s(
        'g',
        { class: 'bucket', 'data-minute': new Date(b.start).toISOString(), 'data-counts': JSON.stringify(b.counts) },
        s('title', {}, `${hhmm(b.start)} UTC: ${words.join(', ') || `no ${noun}`}`),
        // The whole slot answers hover, so a thin bar's numbers are easy to reach.
        s('rect', { class: 'hit', x: `${i * slot}%`, width: `${slot}%`, y: PLOT_TOP, height: PLOT_BOTTOM - PLOT_TOP }),
        series.map((x) => {
          const n = b.counts[x.key];
          if (!n) return null;
          const height = PLOT_BOTTOM - y(n);
          base -= height;
          return s('rect', { class: `fill-${x.tone}`, x: `${i * slot + slot * 0.15}%`, width: `${slot * 0.7}%`, y: base, height, 'data-series': x.key });
        }),
      );
    }),
    s('line', { class: 'axis', x1: '0%', x2: '100%', y1: PLOT_BOTTOM, y2: PLOT_BOTTOM }),
    buckets.map((b, i) =>
      i % 10 === 0 || i === buckets.length - 1
        ? s(
            'text',
            { class: 'tick', x: `${(i + 0.5) * slot}%`, y: HEIGHT - 6, 'text-anchor': i === 0 ? 'start' : i === buckets.length - 1 ? 'end' : 'middle' },
            hhmm(b.start),
          )
        : null,
    ),
  );
  const words = series.map((x) => `${totals[x.key]} ${x.label}`).join(', ');
  return figure(h, {
    label,
    summary: `${total} ${noun} in the ${buckets.length} minutes to ${hhmm(buckets.at(-1).start + MINUTE)} UTC (emulator time): ${words}.`,
    svg,
    legend: legend(
      h,
      series.map((x) => ({ ...x, count: totals[x.key] })),
    ),
    className,
    data: { 'data-total': total, 'data-window-start': new Date(buckets[0].start).toISOString(), 'data-totals': JSON.stringify(totals) },
  });
}
