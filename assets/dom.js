// The dashboard's DOM helpers: elements built from text (never parsed as HTML), tables, values.
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

export const time = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');
export const table = (headers, rows) =>
  h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((x) => h('th', { scope: 'col' }, x)),
      ),
    ),
    h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: headers.length, class: 'dim' }, 'nothing yet'))),
  );
export const pre = (text) => h('pre', {}, text);
// Free text in a table cell (an error, a reference, a name): cut to the column's width with an
// ellipsis, the whole of it in the tooltip and on focus, so one long value cannot push the other
// columns off the screen.
export const clip = (text) =>
  text === null || text === undefined || text === '' ? '—' : h('span', { class: 'clip', title: String(text), tabindex: 0 }, String(text));
export const json = (value) => pre(typeof value === 'string' ? pretty(value) : JSON.stringify(value, null, 2));
export function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
export const status = (s) => h('span', { class: `status s-${String(s).toLowerCase()}` }, s);
export function button(label, action, attrs = {}) {
  return h(
    'button',
    {
      type: 'button',
      ...attrs,
      onclick: async (e) => {
        e.target.disabled = true;
        try {
          const said = await action();
          notice(typeof said === 'string' ? said : `${label}: done`);
        } catch (error) {
          notice(`${label}: ${error.message}`, true);
        } finally {
          e.target.disabled = false;
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

/** Goes to a view (`#/invoices?…`), or renders it again when it is the one shown. */
export function go(hash) {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
}
