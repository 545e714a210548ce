// The dashboard's DOM helpers: elements built from text (never parsed as HTML), cards, fields with
// visible labels, tables whose long values are cut (whole on hover and focus), badges, copy buttons.
import { icon } from './svg.js';

/** A DOM element: h('a', {href}, 'text', child…). Strings become text nodes, never HTML. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

/** `2030-01-01 09:00:00Z`, or a dash. */
export const time = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');
/** `09:00:00` (UTC, as every time the emulator shows). */
export const clockTime = (ms) => new Date(ms).toISOString().slice(11, 19);

/** A titled section: h2, optional tools on its right, then the content. */
let cards = 0;
export function card(title, content, { tools = null, id, className = '' } = {}) {
  // Titled, it is a region named by its heading (a landmark to jump to).
  const headingId = title ? `${id ?? `card-${++cards}`}-title` : undefined;
  return h(
    'section',
    { class: `card ${className}`.trim(), id, 'aria-labelledby': headingId },
    title ? h('div', { class: 'card-head' }, h('h2', { id: headingId }, title), tools) : null,
    content,
  );
}

let fieldIds = 0;
/** A form control with its visible label above it. */
export function field(label, control, hint) {
  control.id ||= `field-${++fieldIds}`;
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hint ? h('span', { class: 'muted small' }, hint) : null);
}

/** A table that fits its card; a row list of none says so. */
export const table = (headers, rows, caption) =>
  h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      caption ? h('caption', { class: 'visually-hidden' }, caption) : null,
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((x) => h('th', { scope: 'col' }, x || h('span', { class: 'visually-hidden' }, 'actions'))),
        ),
      ),
      h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: headers.length, class: 'muted empty' }, 'Nothing yet.'))),
    ),
  );

// Free text in a table cell (an error, a reference, a name): cut to the column's width with an
// ellipsis, the whole of it in the tooltip and on focus, so one long value cannot push the other
// columns off the screen.
export const clip = (text) =>
  text === null || text === undefined || text === '' ? '—' : h('span', { class: 'clip', title: String(text), tabindex: 0 }, String(text));

/**
 * An id or an address: cut to fit (`shown`, or the whole value cut by CSS), the whole value on hover
 * and focus, a link when `href` is given, and a button that copies it.
 */
export function copyable(value, { href, label = 'value', shown } = {}) {
  const text = shown ?? value;
  const el = href ? h('a', { href, class: 'clip', title: value }, text) : h('span', { class: 'clip', title: value, tabindex: 0 }, text);
  return h('span', { class: 'copyable' }, el, copyButton(value, `Copy ${label} ${value}`));
}

export function copyButton(value, name) {
  const button = h('button', { type: 'button', class: 'copy', title: 'Copy', 'aria-label': name }, icon('copy'));
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(value);
      notice(`Copied ${value}`);
    } catch {
      notice(`Copy by hand: ${value}`);
    }
  });
  return button;
}

export const pre = (text) => h('pre', {}, text);
export const json = (value) => pre(typeof value === 'string' ? pretty(value) : JSON.stringify(value, null, 2));
export function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

// Each status's tone and icon: colour is never the only signal (the word is always there too).
const TONES = {
  CREATED: ['info', 'dot'],
  CONFIRMING: ['warn', 'clock'],
  PARTIALLY_PAID: ['warn', 'half'],
  PAID: ['ok', 'check'],
  EXPIRED: ['bad', 'cross'],
  pending: ['info', 'clock'],
  retrying: ['warn', 'retry'],
  succeeded: ['ok', 'check'],
  failed: ['bad', 'cross'],
  ACTIVE: ['ok', 'check'],
  PENDING: ['info', 'clock'],
};
export const toneOf = (s) => TONES[s]?.[0] ?? 'neutral';
/** A status badge: tinted pill, icon and the status in words. */
export const status = (s) => {
  const [tone, shape] = TONES[s] ?? ['neutral', 'dot'];
  return h('span', { class: `badge ${tone}`, 'data-status': s }, icon(shape), String(s));
};

/** A button that runs an action and says how it went (notice); disabled while it runs. */
export function button(label, action, attrs = {}) {
  return h(
    'button',
    {
      type: 'button',
      ...attrs,
      onclick: async (e) => {
        const target = e.currentTarget;
        target.disabled = true;
        try {
          const said = await action();
          notice(typeof said === 'string' ? said : `${label}: done`);
        } catch (error) {
          notice(`${label}: ${error.message}`, true);
        } finally {
          target.disabled = Boolean(attrs.disabled);
        }
      },
    },
    label,
  );
}
// Outside <main>: a live refresh re-renders the view, and must not wipe what an action said.
const noticeBox = document.getElementById('notice');
export function notice(text, bad = false) {
  noticeBox.textContent = text;
  noticeBox.className = bad ? 'notice bad' : 'notice';
}

/** Key facts as a grid of label and value. */
export const facts = (pairs) =>
  h(
    'dl',
    { class: 'facts' },
    pairs.filter(Boolean).map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))),
  );

/** Goes to a view (`#/invoices?…`), or renders it again when it is the one shown. */
export function go(hash) {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
}
