// The svc dashboard (CONTRACT §10). Plain ES module, no build step, nothing from elsewhere: every
// view reads the API and the control plane through the typed client the package exports
// (`svc-emulator/client`, served beside this file), by operation id, so no path is written here and
// every action is an operation of the contract. Text from the emulator only ever reaches the page
// through textContent.
import { api, hooks, makeClients, state } from './api.js';
import { h } from './dom.js';
import { connect } from './live.js';
import { deliveriesView, deliveryView } from './view-deliveries.js';
import { invoicesView, invoiceView } from './view-invoices.js';
import { requestsView } from './view-requests.js';
import { clockView } from './view-clock.js';
import { faultsView, merchantsView, snapshotsView, webhookView } from './view-sandbox.js';

const main = document.getElementById('main');
const envSelect = document.getElementById('env');

/** Each view by its name in the address (`#/name/id?query`): a list, and one item when there is an id. */
const VIEWS = {
  invoices: (id, params) => (id ? invoiceView(id) : invoicesView(params)),
  deliveries: (id, params) => (id ? deliveryView(id) : deliveriesView(params)),
  requests: (_, params) => requestsView(params),
  merchants: () => merchantsView(),
  webhook: () => webhookView(),
  clock: () => clockView(),
  snapshots: () => snapshotsView(),
  faults: () => faultsView(),
};

let rendering = 0;
async function render() {
  const ticket = ++rendering;
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [view, id] = (path || 'invoices').split('/');
  const params = new URLSearchParams(query);
  const shown = location.hash || '#/invoices';
  // Ready (CONTRACT §10, issue 38): `data-ready` names the view whose data is shown, so a screenshot
  // or a test waits for `body[data-ready="#/clock"]`, not for "Loading…" to go. A new view clears it.
  if (document.body.dataset.ready !== shown) delete document.body.dataset.ready;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.view === view) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  try {
    const content = Object.hasOwn(VIEWS, view) ? await VIEWS[view](id, params) : [h('p', {}, 'No such view.')];
    if (ticket !== rendering) return;
    // Keep open <details> open across live refreshes, and the focus where it was.
    const open = new Set([...main.querySelectorAll('details[open] > summary')].map((s) => s.textContent));
    const focused = document.activeElement?.closest('main') ? document.activeElement.id : null;
    main.replaceChildren(...content.flat().filter(Boolean));
    for (const s of main.querySelectorAll('details > summary')) if (open.has(s.textContent)) s.parentElement.open = true;
    if (focused) document.getElementById(focused)?.focus();
  } catch (error) {
    if (ticket !== rendering) return;
    main.replaceChildren(h('p', { class: 'notice bad' }, error.message));
  }
  document.title = `${document.querySelector('main h1')?.textContent || 'svc'} · svc dashboard`;
  document.body.dataset.ready = shown;
}

envSelect.addEventListener('change', () => {
  state.env = envSelect.value;
  render();
});
window.addEventListener('hashchange', () => {
  // Chosen from the navigation: the new view is where a keyboard or screen reader user goes on
  // (a filter's change stays on its control).
  const fromNav = document.activeElement?.closest('nav');
  render();
  if (fromNav) main.focus({ preventScroll: true });
  if (fromNav) window.scrollTo(0, 0);
});
state.keys = await api('getDefaultKeys');
makeClients();
hooks.tokenChanged = () => connect(render);
connect(render);
render();
