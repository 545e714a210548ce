// Lanes of marks on one time axis: an invoice's timeline (status, payments, each delivery's attempts,
// the expiry), the attempts of the deliveries on a page, one delivery's attempts. Gaps are drawn
// compressed (longer gaps get more room, up to a cap, and a "+1h" label says how long): what
// happens in one millisecond stays apart from what happens an hour later, and both stay readable.
import { clockTime, h } from './dom.js';
import { figure, s } from './svg.js';

const LABEL_W = 160;
const LANE_H = 30;
const TOP = 26;
const AXIS_H = 30;
const MIN_STEP = 18;
const MAX_STEP = 150;

/** Room for a gap of `ms`: logarithmic, from MIN_STEP to MAX_STEP. */
const step = (ms) => (ms <= 0 ? 0 : Math.min(MAX_STEP, MIN_STEP + 24 * Math.log10(1 + ms / 20)));
const gapText = (ms) => {
  const sec = Math.round(ms / 1000);
  if (sec < 60) return `+${sec}s`;
  if (sec < 3600) return `+${Math.round(sec / 60)}m`;
  if (sec < 86400) return `+${Math.floor(sec / 3600)}h${Math.round((sec % 3600) / 60) ? `${Math.round((sec % 3600) / 60)}m` : ''}`;
  return `+${Math.round(sec / 86400)}d`;
};

/**
 * A mark: its outline says what it is (circle an event or a scheduled attempt, square a manual one,
 * diamond a payment, ring a retry still to come), its glyph how an attempt ended (check, cross), its
 * title all of it in words: colour is never the only signal.
 */
function shape(mark, x, y) {
  const common = { class: `mark ${mark.shape} fill-${mark.tone}`, 'data-kind': mark.kind, 'data-at': new Date(mark.t).toISOString() };
  const outline =
    mark.shape === 'diamond'
      ? s('path', { d: `M${x} ${y - 8}l8 8-8 8-8-8z` })
      : mark.shape === 'square'
        ? s('rect', { x: x - 7, y: y - 7, width: 14, height: 14, rx: 2 })
        : s('circle', { cx: x, cy: y, r: 7 });
  const glyph =
    mark.glyph === 'check'
      ? s('path', { class: 'glyph', d: `M${x - 3.5} ${y}l2.5 2.5 4.5-5` })
      : mark.glyph === 'cross'
        ? s('path', { class: 'glyph', d: `M${x - 3} ${y - 3}l6 6m0-6l-6 6` })
        : null;
  return s('g', common, s('title', {}, mark.title), outline, glyph);
}

/**
 * lanes: [{label, marks: [{t, kind, shape, tone, title}]}]; rules: [{t, label}] (vertical, e.g. the
 * expiry). Returns the figure (legend and summary given by the caller).
 */
export function laneChart({ label, summary, lanes, rules = [], legend, className, data }) {
  const times = [...new Set([...lanes.flatMap((l) => l.marks.map((m) => m.t)), ...rules.map((r) => r.t)])].sort((a, b) => a - b);
  const xs = new Map();
  const breaks = [];
  let x = 14;
  times.forEach((t, i) => {
    if (i > 0) {
      const gap = t - times[i - 1];
      x += step(gap);
      if (gap >= 60_000) breaks.push({ x: x - step(gap) / 2, text: gapText(gap) });
    }
    xs.set(t, x);
  });
  const width = LABEL_W + x + 60;
  const height = TOP + lanes.length * LANE_H + AXIS_H;
  const axisY = TOP + lanes.length * LANE_H + 4;
  // Time labels under the axis, where there is room for them.
  let lastLabel = -Infinity;
  const timeLabels = [];
  for (const t of times) {
    const tx = xs.get(t);
    if (tx - lastLabel < 64) continue;
    lastLabel = tx;
    timeLabels.push(s('text', { class: 'tick', x: LABEL_W + tx, y: axisY + 16, 'text-anchor': 'middle' }, clockTime(t)));
  }
  const svg = s(
    'svg',
    { class: 'lane-chart', viewBox: `0 0 ${width} ${height}` },
    lanes.map((lane, i) => {
      const cy = TOP + i * LANE_H + LANE_H / 2;
      const seen = new Map();
      return s(
        'g',
        { class: 'lane', 'data-lane': lane.key ?? lane.label },
        s('line', { class: 'lane-line', x1: LABEL_W, x2: width - 10, y1: cy, y2: cy }),
        s('text', { class: 'lane-label', x: 0, y: cy + 4 }, lane.label.length > 24 ? `${lane.label.slice(0, 23)}…` : lane.label),
        lane.marks.map((m) => {
          // Two marks of one lane at the same moment: side by side, not on top of each other.
          const n = seen.get(m.t) ?? 0;
          seen.set(m.t, n + 1);
          return shape(m, LABEL_W + xs.get(m.t) + n * 14, cy);
        }),
      );
    }),
    rules.map((r) =>
      s(
        'g',
        { class: `rule ${r.className ?? ''}`, 'data-kind': r.kind, 'data-at': new Date(r.t).toISOString() },
        s('line', { x1: LABEL_W + xs.get(r.t), x2: LABEL_W + xs.get(r.t), y1: 14, y2: axisY }),
        s('text', { class: 'rule-label', x: LABEL_W + xs.get(r.t), y: 10, 'text-anchor': 'middle' }, r.label),
      ),
    ),
    s('line', { class: 'axis', x1: LABEL_W, x2: width - 10, y1: axisY, y2: axisY }),
    breaks.map((b) => s('text', { class: 'gap', x: LABEL_W + b.x, y: axisY - 4, 'text-anchor': 'middle' }, `≈ ${b.text}`)),
    timeLabels,
  );
  // As wide as its card allows, down to a readable size; narrower than that it scrolls in its card.
  svg.style.width = '100%';
  svg.style.height = 'auto';
  svg.style.maxWidth = `${width}px`;
  svg.style.minWidth = `${Math.min(width, 560)}px`;
  return figure(h, { label, summary, svg, legend, className: `lanes ${className ?? ''}`, data });
}

/** The legend of mark shapes, in words. */
export const SHAPE_LEGEND = {
  event: { key: 'event', label: 'event (status change)', className: 'shape-circle' },
  payment: { key: 'payment', label: 'payment', className: 'shape-diamond' },
  success: { key: 'success', label: 'attempt: success ✓', className: 'shape-check' },
  failure: { key: 'failure', label: 'attempt: failure ✕', className: 'shape-cross' },
  manual: { key: 'manual', label: 'manual resend (square)', className: 'shape-square' },
  retry: { key: 'retry', label: 'retry scheduled', className: 'shape-ring' },
  expiry: { key: 'expiry', label: 'expiry', className: 'shape-rule' },
};
