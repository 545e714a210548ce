// The svc dashboard (CONTRACT §10). Plain ES module, no build step, nothing from elsewhere: every
// view reads the API and the control plane through the typed client the package exports
// (`svc-emulator/client`, served beside this file), by operation id, so no path is written here and
// every action is an operation of the contract. Text from the emulator only ever reaches the page
// through textContent.
import { createClient, operationPath, readEvents } from './client.js';

const main = document.getElementById('main');
const envSelect = document.getElementById('env');
const liveLabel = document.getElementById('live');
let keys = null;
// Payments made unconfirmed from this page, by invoice: the confirm helper needs their ids.
const state = { env: 'test', unconfirmed: new Map() };
// The control token of a remote control plane (CONTRACT §12: replicas behind a load balancer).
// `svc open` passes it in the fragment (#token=…), which never reaches a server or its logs; it moves
// to sessionStorage (this tab only, gone when it closes) and leaves the address bar, so it is not in
// the history, a bookmark or a shared link. Without it, a refused control call asks for it (askToken).
const TOKEN_KEY = 'svc-control-token';
if (location.hash.startsWith('#token=')) {
  const given = decodeURIComponent(location.hash.slice('#token='.length));
  if (given) sessionStorage.setItem(TOKEN_KEY, given);
  history.replaceState(null, '', location.pathname + location.search);
}
// Marks the dashboard's calls in the request journal, which leaves them out of its default views.
const base = { baseUrl: location.origin, headers: { 'svc-client': 'dashboard' } };
const options = () => ({ ...base, controlToken: sessionStorage.getItem(TOKEN_KEY) ?? undefined });
// The control plane's operations take no key; the API's take the partner key of the environment
// shown (the dashboard sees every merchant's invoices, and test helpers act on them as the partner).
let control = createClient(options());
const clients = {};
function makeClients() {
  control = createClient(options());
  for (const env of ['test', 'live']) if (keys) clients[env] = createClient({ ...options(), partnerKey: keys[env].partnerKey });
}

/** A DOM element: h('a', {href}, 'text', child…). Strings become text nodes, never HTML. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

/**
 * Calls one operation by id (`api('listPartnerInvoices', {query})`) with the environment's client and
 * answers its data; a refusal throws, with the contract's code and message, for the view to show.
 */
async function api(operationId, input) {
  let result = await (clients[state.env] ?? control)[operationId](input);
  // A remote control plane that wants the token: ask for it, then the same call once more.
  while (!result.ok && result.error.code === 'control_plane_forbidden') {
    await askToken(sessionStorage.getItem(TOKEN_KEY) !== null);
    result = await (clients[state.env] ?? control)[operationId](input);
  }
  if (!result.ok) throw new Error(`${result.status} ${result.error.code}: ${result.error.message}`);
  return result.data ?? null;
}

// One form at a time: the calls refused meanwhile all wait for the same answer.
let asking = null;
/** Asks for the control token in a small form (not `prompt()`: it can be styled, labelled and tested). */
function askToken(refused) {
  asking ??= new Promise((resolve) => {
    const input = h('input', { type: 'password', id: 'control-token', autocomplete: 'off', required: true });
    const form = h(
      'form',
      {
        class: 'token',
        onsubmit: (e) => {
          e.preventDefault();
          sessionStorage.setItem(TOKEN_KEY, input.value.trim());
          makeClients();
          asking = null;
          form.remove();
          // The change feed too, if it was open already (at start it opens once the keys are read).
          if (source) connect();
          resolve();
        },
      },
      h('h1', {}, 'Control token'),
      h(
        'p',
        {},
        refused
          ? 'The emulator refused that token. Enter the one svc dev was started with (--control-token).'
          : 'This emulator serves its control plane to holders of its control token (svc dev --control-token). Enter it to use the dashboard; it is kept in this tab only.',
      ),
      h('label', { for: 'control-token' }, 'Token '),
      input,
      h('button', { type: 'submit' }, 'Use this token'),
    );
    document.body.insertBefore(form, main);
    input.focus();
  });
  return asking;
}

const time = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');
const table = (headers, rows) =>
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
const pre = (text) => h('pre', {}, text);
// Free text in a table cell (an error, a reference, a name): cut to the column's width with an
// ellipsis, the whole of it in the tooltip and on focus, so one long value cannot push the other
// columns off the screen.
const clip = (text) =>
  text === null || text === undefined || text === '' ? '—' : h('span', { class: 'clip', title: String(text), tabindex: 0 }, String(text));
const json = (value) => pre(typeof value === 'string' ? pretty(value) : JSON.stringify(value, null, 2));
function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
const status = (s) => h('span', { class: `status s-${String(s).toLowerCase()}` }, s);
function button(label, action, attrs = {}) {
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
function notice(text, bad = false) {
  noticeBox.textContent = text;
  noticeBox.className = bad ? 'notice bad' : 'notice';
}

// ——— views ———

async function invoicesView(params) {
  const page = await api('listPartnerInvoices', {
    query: { limit: 25, status: params.get('status') ?? undefined, startingAfter: params.get('after') ?? undefined },
  });
  const filter = h(
    'select',
    { 'aria-label': 'status filter', onchange: (e) => go(`#/invoices${e.target.value ? `?status=${e.target.value}` : ''}`) },
    ['', 'CREATED', 'CONFIRMING', 'PARTIALLY_PAID', 'PAID', 'EXPIRED'].map((s) =>
      h('option', { value: s, selected: s === (params.get('status') ?? '') }, s || 'any status'),
    ),
  );
  const rows = page.data.map((i) =>
    h(
      'tr',
      {},
      h('td', {}, h('a', { href: `#/invoices/${i.id}` }, i.id)),
      h('td', {}, status(i.status)),
      h('td', {}, `${i.amount}`),
      h('td', {}, i.amountReceived),
      h('td', {}, clip(i.referenceId)),
      h('td', {}, time(i.expiresAt)),
    ),
  );
  const more = page.hasMore
    ? h(
        'a',
        { href: `#/invoices?${new URLSearchParams({ ...(params.get('status') ? { status: params.get('status') } : {}), after: page.data.at(-1).id })}` },
        'Older →',
      )
    : null;
  return [h('h1', {}, 'Invoices'), filter, table(['id', 'status', 'amount', 'received', 'reference', 'expires'], rows), more];
}

async function invoiceView(id) {
  const [inv, events, deliveries] = await Promise.all([
    api('getPartnerInvoice', { params: { id } }),
    api('listInvoiceEvents', { params: { id } }),
    api('listDeliveries', { query: { invoiceId: id, limit: 100 } }),
  ]);
  const left = Math.max(0, Number(inv.amount) - Number(inv.amountReceived));
  const pay = (amount, confirmed = true) => api('createTestPayment', { params: { id }, body: { amount: amount.toFixed(2), confirmed } });
  const actions =
    inv.environment === 'test'
      ? h(
          'div',
          { class: 'actions' },
          button('Pay in full', () => pay(left || Number(inv.amount))),
          button('Pay part', () => pay(Math.max(0.01, (left || Number(inv.amount)) / 2))),
          button('Overpay', () => pay((left || 0) + 1)),
          button('Pay unconfirmed', async () => {
            const r = await pay(left || Number(inv.amount), false);
            state.unconfirmed.set(id, [...(state.unconfirmed.get(id) ?? []), r.payment.id]);
          }),
          button('Expire', () => api('expireTestInvoice', { params: { id } })),
        )
      : h('p', { class: 'dim' }, 'Test helpers work on test invoices only.');
  const unconfirmed = state.unconfirmed.get(id) ?? [];
  return [
    h('h1', {}, 'Invoice ', h('code', {}, inv.id)),
    h(
      'dl',
      {},
      [
        ['status', status(inv.status)],
        ['amount', inv.amount],
        ['received', inv.amountReceived],
        ['merchant', inv.merchantId],
        ['reference', inv.referenceId ?? '—'],
        ['expires', time(inv.expiresAt)],
        ['checkout', h('a', { href: inv.checkoutUrl }, inv.checkoutUrl)],
      ].flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    actions,
    unconfirmed.length
      ? h(
          'div',
          { class: 'actions' },
          unconfirmed.map((paymentId) =>
            button(`Confirm payment ${paymentId.slice(0, 8)}`, async () => {
              await api('confirmTestPayment', { params: { id, paymentId } });
              state.unconfirmed.set(
                id,
                (state.unconfirmed.get(id) ?? []).filter((p) => p !== paymentId),
              );
            }),
          ),
        )
      : null,
    h('h2', {}, 'Addresses'),
    table(
      ['chain', 'network', 'address', 'tokens'],
      inv.addresses.map((a) =>
        h(
          'tr',
          {},
          h('td', {}, a.chainName),
          h('td', {}, a.networkId),
          h('td', {}, h('code', {}, a.depositAddress)),
          h('td', {}, a.tokens.map((t) => t.symbol).join(', ')),
        ),
      ),
    ),
    h('h2', {}, 'Events'),
    h(
      'ol',
      { class: 'timeline' },
      events.data.map((e) =>
        h('li', {}, h('details', {}, h('summary', {}, `${e.data.sequence}. ${e.type} · ${time(e.createdAt)} · ${e.data.status}`), json(e))),
      ),
    ),
    h('h2', {}, 'Deliveries'),
    deliveryTable(deliveries.data),
  ];
}

function deliveryTable(list) {
  return table(
    ['delivery', 'event', 'target', 'status', 'attempts', 'last result', 'next attempt'],
    list.map((d) =>
      h(
        'tr',
        {},
        h('td', {}, h('a', { href: `#/deliveries/${d.id}` }, `…${d.id.slice(-8)}`)),
        h('td', {}, `${d.eventType}`),
        h('td', {}, d.target ?? 'webhook'),
        h('td', {}, status(d.status)),
        h('td', {}, d.attemptCount),
        h('td', {}, clip(d.lastError ?? d.lastResponseStatus)),
        h('td', {}, time(d.nextAttemptAt)),
      ),
    ),
  );
}

async function deliveriesView(params) {
  const page = await api('listDeliveries', {
    query: { limit: 25, status: params.get('status') ?? undefined, startingAfter: params.get('after') ?? undefined },
  });
  const filter = h(
    'select',
    { 'aria-label': 'status filter', onchange: (e) => go(`#/deliveries${e.target.value ? `?status=${e.target.value}` : ''}`) },
    ['', 'pending', 'retrying', 'succeeded', 'failed'].map((s) => h('option', { value: s, selected: s === (params.get('status') ?? '') }, s || 'any status')),
  );
  const failed = page.data.filter((d) => d.status === 'failed');
  return [
    h('h1', {}, 'Deliveries'),
    filter,
    h(
      'div',
      { class: 'actions' },
      button(
        `Resend failed on this page (${failed.length})`,
        async () => {
          for (const d of failed) await api('resendDelivery', { params: { id: d.id } }).catch(() => undefined);
        },
        { disabled: failed.length === 0 },
      ),
    ),
    deliveryTable(page.data),
    page.hasMore
      ? h('a', { href: `#/deliveries?after=${page.data.at(-1).id}${params.get('status') ? `&status=${params.get('status')}` : ''}` }, 'Older →')
      : null,
  ];
}

async function deliveryView(id) {
  const d = await api('getDelivery', { params: { id } });
  return [
    h('h1', {}, 'Delivery ', h('code', {}, d.id)),
    h(
      'dl',
      {},
      [
        ['event', `${d.eventType} (${d.eventId})`],
        ['invoice', h('a', { href: `#/invoices/${d.invoiceId}` }, d.invoiceId)],
        ['url', d.url],
        ['status', status(d.status)],
        ['next attempt', time(d.nextAttemptAt)],
      ].flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    h(
      'div',
      { class: 'actions' },
      button('Resend', () => api('resendDelivery', { params: { id } })),
    ),
    h('h2', {}, 'Payload'),
    json(d.payload),
    h('h2', {}, 'Attempts'),
    h(
      'ol',
      { class: 'timeline' },
      d.attempts.map((a) =>
        h(
          'li',
          {},
          h(
            'details',
            { open: a.number === d.attempts.length },
            h(
              'summary',
              {},
              `#${a.number} ${a.trigger} · ${time(a.startedAt)} · ${a.responseStatus ?? 'no answer'} · ${a.durationMs} ms${a.error ? ` · ${a.error}` : ''}${a.chaos ? ` · chaos: ${a.chaos}` : ''}`,
            ),
            h('p', {}, 'Response body:'),
            pre(a.responseBody ?? '(none)'),
          ),
        ),
      ),
    ),
  ];
}

async function requestsView(params) {
  // This page's own calls (and the rest of the dashboard's) are not what the user is looking for.
  const query = {
    limit: 50,
    path: params.get('path') ?? undefined,
    status: params.get('status') ?? undefined,
    fromDashboard: params.get('all') ? undefined : false,
  };
  const page = await api('listRequests', { query });
  const form = h(
    'form',
    {
      class: 'filters',
      onsubmit: (e) => {
        e.preventDefault();
        const f = new FormData(e.target);
        const next = new URLSearchParams([...f].filter(([, v]) => v));
        go(`#/requests${next.size ? `?${next}` : ''}`);
      },
    },
    h('label', {}, 'path ', h('input', { name: 'path', value: params.get('path') ?? '', placeholder: operationPath('createInvoice') })),
    h('label', {}, 'status ', h('input', { name: 'status', value: params.get('status') ?? '', size: 4, inputmode: 'numeric' })),
    h('label', {}, h('input', { type: 'checkbox', name: 'all', value: '1', checked: Boolean(params.get('all')) }), " the dashboard's own requests too"),
    h('button', { type: 'submit' }, 'Filter'),
    button('Clear the journal', () => api('clearRequests')),
  );
  return [
    h('h1', {}, 'Request journal'),
    form,
    h(
      'ol',
      { class: 'timeline' },
      page.data.map((r) =>
        h(
          'li',
          {},
          h(
            'details',
            {},
            h(
              'summary',
              {},
              `${time(r.at)} ${r.method} ${r.path}${r.query ? `?${r.query}` : ''} → ${r.status ?? 'dropped'} · ${Math.round(r.durationMs)} ms${r.fault ? ` · fault ${r.fault}` : ''}${r.fromDashboard ? ' · dashboard' : ''}`,
            ),
            h('p', {}, 'Request'),
            pre(r.requestBody ? pretty(r.requestBody) : '(no body)'),
            h('p', {}, 'Response'),
            pre(r.responseBody ? pretty(r.responseBody) : '(no body)'),
          ),
        ),
      ),
    ),
  ];
}

async function merchantsView() {
  const page = await api('listMerchants', { query: { limit: 100 } });
  return [
    h('h1', {}, 'Merchants'),
    table(
      ['id', 'name', 'tenant', 'status', 'chains', ''],
      page.data.map((m) =>
        h(
          'tr',
          {},
          h('td', {}, h('code', {}, m.merchantId)),
          h('td', {}, clip(m.name)),
          h('td', {}, clip(m.externalTenantId)),
          h('td', {}, m.integrationStatus),
          h('td', {}, m.networkIds ? m.networkIds.join(', ') : 'all'),
          h(
            'td',
            {},
            button('Mint a key', async () => {
              const k = await api('createMerchantKey', { params: { id: m.merchantId } });
              return `New key (shown once): ${k.merchantKey}`;
            }),
          ),
        ),
      ),
    ),
    h(
      'p',
      { class: 'dim' },
      'Default keys of this environment: partner ',
      h('code', {}, keys[state.env].partnerKey),
      ', merchant ',
      h('code', {}, keys[state.env].merchantKey),
    ),
  ];
}

async function webhookView() {
  let config = null;
  try {
    config = await api('getWebhook');
  } catch {}
  return [
    h('h1', {}, 'Webhook'),
    config ? json(config) : h('p', { class: 'dim' }, 'No webhook configured in this environment (svc webhook set --url …).'),
    h('p', { class: 'dim' }, '`svc webhook listen` registrations show as deliveries with target listener.'),
  ];
}

async function clockView() {
  const clock = await api('getClock');
  const input = h('input', { id: 'advance-seconds', value: '3600', size: 8, inputmode: 'numeric', 'aria-label': 'seconds to advance' });
  return [
    h('h1', {}, 'Clock'),
    h('p', {}, 'Emulator time ', h('strong', {}, time(clock.now)), ` (${clock.offsetSeconds} s ahead of the wall clock)`),
    h(
      'div',
      { class: 'actions' },
      input,
      button('Advance', async () => {
        const r = await api('advanceClock', { body: { seconds: Number(input.value) } });
        return `Advanced ${r.advancedSeconds} s: ${r.expired} invoice(s) expired, ${r.deliveryAttempts} delivery attempt(s) made`;
      }),
    ),
  ];
}

async function snapshotsView() {
  const list = await api('listSnapshots');
  const name = h('input', { value: 'snapshot-1', 'aria-label': 'snapshot name' });
  return [
    h('h1', {}, 'Snapshots'),
    h(
      'div',
      { class: 'actions' },
      name,
      button('Save', () => api('saveSnapshot', { body: { name: name.value } })),
    ),
    table(
      ['name', 'saved at', 'size', ''],
      list.data.map((s) =>
        h(
          'tr',
          {},
          h('td', {}, clip(s.name)),
          h('td', {}, time(s.createdAt)),
          h('td', {}, `${Math.round(s.bytes / 1024)} KiB`),
          h(
            'td',
            {},
            button('Restore', () => api('restoreSnapshot', { params: { name: s.name } })),
          ),
        ),
      ),
    ),
  ];
}

async function faultsView() {
  const [faults, chaos] = await Promise.all([api('listFaults'), api('getWebhookChaos')]);
  // The example and default are the contract's own paths, not written here (issue 26).
  const path = h('input', { value: operationPath('createInvoice'), 'aria-label': 'fault path' });
  const code = h('input', { value: '503', size: 4, 'aria-label': 'fault status' });
  return [
    h('h1', {}, 'API faults'),
    h(
      'div',
      { class: 'actions' },
      path,
      code,
      button('Add fault (next request, after commit)', () =>
        api('createFault', {
          body: { match: { path: path.value }, action: { status: Number(code.value) }, when: 'after_commit', times: 1 },
        }),
      ),
      button('Clear all', () => api('clearFaults')),
    ),
    table(
      ['id', 'match', 'action', 'when', 'left', 'fired'],
      faults.data.map((f) =>
        h(
          'tr',
          {},
          h('td', {}, h('code', {}, f.id.slice(0, 8))),
          h('td', {}, clip(`${f.match.method ?? 'any'} ${f.match.path ?? 'any API path'}`)),
          h('td', {}, clip(JSON.stringify(f.action))),
          h('td', {}, f.when),
          h('td', {}, f.times ?? '∞'),
          h('td', {}, f.fired),
        ),
      ),
    ),
    h('h1', {}, 'Webhook chaos'),
    chaos.active ? json(chaos) : h('p', { class: 'dim' }, 'No webhook chaos in force.'),
    h(
      'div',
      { class: 'actions' },
      button('Duplicate every delivery', () => api('putWebhookChaos', { body: { duplicate: 1 } })),
      button('End chaos', () => api('deleteWebhookChaos')),
    ),
  ];
}

// ——— routing and live updates ———

function go(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

let rendering = 0;
async function render() {
  const ticket = ++rendering;
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [view, id] = (path || 'invoices').split('/');
  const params = new URLSearchParams(query);
  for (const a of document.querySelectorAll('nav a')) a.toggleAttribute('aria-current', a.dataset.view === view);
  try {
    const content =
      view === 'invoices'
        ? id
          ? await invoiceView(id)
          : await invoicesView(params)
        : view === 'deliveries'
          ? id
            ? await deliveryView(id)
            : await deliveriesView(params)
          : view === 'requests'
            ? await requestsView(params)
            : view === 'merchants'
              ? await merchantsView()
              : view === 'webhook'
                ? await webhookView()
                : view === 'clock'
                  ? await clockView()
                  : view === 'snapshots'
                    ? await snapshotsView()
                    : view === 'faults'
                      ? await faultsView()
                      : [h('p', {}, 'No such view.')];
    if (ticket !== rendering) return;
    // Keep open <details> open across live refreshes.
    const open = new Set([...main.querySelectorAll('details[open] > summary')].map((s) => s.textContent));
    const focused = document.activeElement?.closest('main') ? document.activeElement.id : null;
    main.replaceChildren(...content.flat().filter(Boolean));
    for (const s of main.querySelectorAll('details > summary')) if (open.has(s.textContent)) s.parentElement.open = true;
    if (focused) document.getElementById(focused)?.focus();
  } catch (error) {
    if (ticket === rendering) main.replaceChildren(h('p', { class: 'notice bad' }, error.message));
  }
}

let pending = null;
const onChange = () => {
  // Busy moments send many changes: refresh at most every 250 ms, and not while typing.
  if (pending !== null) return;
  pending = setTimeout(() => {
    pending = null;
    if (!document.activeElement?.matches('input, select')) render();
  }, 250);
};
let source = null;
function connect() {
  source?.close();
  // EventSource cannot send a header: with a token, the same stream read through fetch.
  source = sessionStorage.getItem(TOKEN_KEY) ? tokenStream() : new EventSource(operationPath('streamChanges'));
  source.addEventListener('ready', () => (liveLabel.textContent = 'live'));
  source.addEventListener('change', onChange);
  source.onerror = () => (liveLabel.textContent = 'reconnecting…');
}

/** The change feed as an EventSource-like target, read through the client's `readEvents` so that it carries the control token. */
function tokenStream() {
  const target = new EventTarget();
  const controller = new AbortController();
  target.close = () => controller.abort();
  (async () => {
    while (!controller.signal.aborted) {
      await readEvents(control.url('streamChanges'), { headers: control.controlHeaders(), signal: controller.signal }, (event) =>
        target.dispatchEvent(new Event(event)),
      ).catch(() => undefined);
      if (controller.signal.aborted) return;
      target.onerror?.();
      // As EventSource does: try again after a moment.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  })();
  return target;
}

envSelect.addEventListener('change', () => {
  state.env = envSelect.value;
  render();
});
window.addEventListener('hashchange', render);
keys = await api('getDefaultKeys');
makeClients();
connect();
render();
