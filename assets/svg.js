// Inline SVG for the dashboard's pictures: an element builder (text only, never markup), the icons
// badges and buttons use, and the scales charts share. No chart library: a few shapes suffice.
const NS = 'http://www.w3.org/2000/svg';

/** An SVG element: s('rect', {x, y}, child…). Strings become text nodes. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

const PATHS = {
  check: 'M3.5 8.5l3 3 6-7',
  cross: 'M4.5 4.5l7 7m0-7l-7 7',
  clock: 'M8 4.5V8l2.5 1.5M8 14A6 6 0 1 0 8 2a6 6 0 0 0 0 12z',
  retry: 'M13 8a5 5 0 1 1-1.6-3.7M13 2.5v3h-3',
  half: 'M8 2a6 6 0 1 0 0 12A6 6 0 0 0 8 2zm0 0v12',
  dot: 'M8 5.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5z',
  copy: 'M5.5 5.5V3.5a1 1 0 0 1 1-1h6a1 1 0 0 1 1 1v6a1 1 0 0 1-1 1h-2M3.5 5.5h6a1 1 0 0 1 1 1v6a1 1 0 0 1-1 1h-6a1 1 0 0 1-1-1v-6a1 1 0 0 1 1-1z',
  hand: 'M5 8V3.5a1 1 0 0 1 2 0V7m0-1.5a1 1 0 0 1 2 0V7m0-1a1 1 0 0 1 2 0v1m0 0a1 1 0 0 1 2 0v2.5A4.5 4.5 0 0 1 8.5 14h-.7a4 4 0 0 1-3-1.4L3 10.5a1 1 0 0 1 1.5-1.3L5 10',
};
/** A 16-unit stroke icon, decorative (its meaning is always in words beside it). */
export const icon = (name) =>
  s(
    'svg',
    { viewBox: '0 0 16 16', 'aria-hidden': 'true', focusable: 'false', class: `icon icon-${name}` },
    s('path', {
      d: PATHS[name] ?? PATHS.dot,
      fill: 'none',
      stroke: 'currentColor',
      'stroke-width': 1.6,
      'stroke-linecap': 'round',
      'stroke-linejoin': 'round',
    }),
  );

/** A linear map from a domain to a range. */
export const linear = (d0, d1, r0, r1) => (v) => (d1 === d0 ? (r0 + r1) / 2 : r0 + ((v - d0) / (d1 - d0)) * (r1 - r0));

/** Round tick values from 0 to at least `max` (about `count` of them); whole numbers, for counts. */
export function ticks(max, count = 4) {
  if (max <= 0) return [0, 1];
  const raw = Math.max(1, max / count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((x) => x >= raw) ?? raw;
  const out = [];
  for (let v = 0; v < max + step; v += step) out.push(Math.round(v * 1e6) / 1e6);
  return out;
}

/** A chart as a figure: an SVG with its title and summary (role img, labelled), and a legend. */
export function figure(h, { label, summary, svg, legend, className = '', data = {} }) {
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${label}. ${summary}`);
  svg.prepend(s('title', {}, label));
  return h(
    'figure',
    { class: `chart ${className}`.trim(), ...data },
    h('div', { class: 'chart-scroll' }, svg),
    legend,
    h('figcaption', { class: 'muted small' }, summary),
  );
}

/** A legend of series: swatch (or shape), name and count, in words. */
export function legend(h, items) {
  return h(
    'ul',
    { class: 'legend' },
    items.map((it) =>
      h(
        'li',
        { 'data-series': it.key },
        h('span', { class: `swatch ${it.className ?? `fill-${it.tone}`}`, 'aria-hidden': 'true' }),
        `${it.label}`,
        it.count === undefined ? null : h('strong', {}, ` ${it.count}`),
      ),
    ),
  );
}
