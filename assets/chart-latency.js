// Latency over the last window: one dot per request (time across, milliseconds up, on a log scale), with the median,
// the 95th percentile and the slowest in the legend. Each dot carries its numbers (data-ms, title).
import { h } from './dom.js';
import { figure, linear, s } from './svg.js';

const HEIGHT = 150;
const PLOT_TOP = 18;
const PLOT_BOTTOM = 126;

const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);
const ms = (n) => (n >= 10 ? `${Math.round(n)} ms` : `${n.toFixed(1)} ms`);

/** `entries` of the request journal within [start, end) (emulator time, ms), as a dot chart. */
export function latencyChart({ entries, start, end }) {
  const shown = entries.filter((e) => {
    const t = Date.parse(e.at);
    return t >= start && t < end;
  });
  const sorted = shown.map((e) => e.durationMs).sort((a, b) => a - b);
  // A log scale: one slow request (a first write, a delay fault) leaves the rest readable.
  const top = 10 ** Math.max(1, Math.ceil(Math.log10(Math.max(1, sorted.at(-1) ?? 1))));
  const yTicks = [];
  for (let v = 1; v <= top; v *= 10) yTicks.push(v);
  const log = linear(Math.log10(0.1), Math.log10(top), PLOT_BOTTOM, PLOT_TOP);
  const y = (v) => log(Math.log10(Math.max(0.1, v)));
  const x = linear(start, end, 1, 99);
  const hhmm = (t) => new Date(t).toISOString().slice(11, 16);
  const svg = s(
    'svg',
    { class: 'latency-chart', width: '100%', height: HEIGHT },
    yTicks.map((v) =>
      s(
        'g',
        { class: 'grid' },
        s('line', { x1: '0%', x2: '100%', y1: y(v), y2: y(v) }),
        s('text', { x: '0%', y: y(v) - 3, class: 'tick' }, v >= 1000 ? `${v / 1000} s` : `${v} ms`),
      ),
    ),
    s('line', { class: 'axis', x1: '0%', x2: '100%', y1: PLOT_BOTTOM, y2: PLOT_BOTTOM }),
    shown.map((e) =>
      s(
        'circle',
        { class: 'dot', cx: `${x(Date.parse(e.at))}%`, cy: y(e.durationMs), r: 3, 'data-ms': e.durationMs, 'data-at': e.at },
        s('title', {}, `${e.method} ${e.path} → ${e.status ?? 'dropped'} in ${ms(e.durationMs)} at ${e.at.slice(11, 19)} UTC`),
      ),
    ),
    s('text', { class: 'tick', x: '0%', y: HEIGHT - 6 }, hhmm(start)),
    s('text', { class: 'tick', x: '100%', y: HEIGHT - 6, 'text-anchor': 'end' }, hhmm(end)),
  );
  const stats = [
    ['median', quantile(sorted, 0.5)],
    ['p95', quantile(sorted, 0.95)],
    ['slowest', sorted.at(-1) ?? 0],
  ];
  return figure(h, {
    label: 'Latency of each request',
    summary: shown.length ? `${shown.length} requests: ${stats.map(([k, v]) => `${k} ${ms(v)}`).join(', ')}.` : 'No requests in this window.',
    svg,
    legend: h(
      'ul',
      { class: 'legend' },
      stats.map(([k, v]) => h('li', { 'data-stat': k }, `${k} `, h('strong', {}, ms(v)))),
    ),
    data: { 'data-count': shown.length },
  });
}
