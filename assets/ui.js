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

envSelect.addEventListener('change', () => {
  state.env = envSelect.value;
  render();
});
window.addEventListener('hashchange', render);
state.keys = await api('getDefaultKeys');
makeClients();
hooks.tokenChanged = () => connect(render);
connect(render);
render();
