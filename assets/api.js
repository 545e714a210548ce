// The dashboard's way to the emulator: the typed client the package exports (`svc-emulator/client`,
// served beside this file) by operation id, with the partner key of the environment shown, and the
// control token of a remote control plane.
import { createClient } from './client.js';
import { h } from './dom.js';

const main = document.getElementById('main');
// The environment shown, and its default keys (GET /__emulator/keys).
export const state = { env: 'test', keys: null };
// The control token of a remote control plane (CONTRACT §12: replicas behind a load balancer).
// `svc open` passes it in the fragment (#token=…), which never reaches a server or its logs; it moves
// to sessionStorage (this tab only, gone when it closes) and leaves the address bar, so it is not in
// the history, a bookmark or a shared link. Without it, a refused control call asks for it (askToken).
export const TOKEN_KEY = 'svc-control-token';
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
export let control = createClient(options());
const clients = {};
export function makeClients() {
  control = createClient(options());
  for (const env of ['test', 'live']) if (state.keys) clients[env] = createClient({ ...options(), partnerKey: state.keys[env].partnerKey });
}
/** Set by the change feed (live.js): a new token reopens it. */
export const hooks = { tokenChanged: () => {} };

/**
 * Calls one operation by id (`api('listPartnerInvoices', {query})`) with the environment's client and
 * answers its data; a refusal throws, with the contract's code and message, for the view to show.
 */
export async function api(operationId, input) {
  let result = await (clients[state.env] ?? control)[operationId](input);
  // A remote control plane that wants the token: ask for it, then the same call once more.
  while (!result.ok && result.error.code === 'control_plane_forbidden') {
    await askToken(sessionStorage.getItem(TOKEN_KEY) !== null);
    result = await (clients[state.env] ?? control)[operationId](input);
  }
  if (!result.ok) throw new Error(`${result.status} ${result.error.code}: ${result.error.message}`);
  return result.data ?? null;
}

/**
 * The items of a list operation, newest first, page after page (100 each) until one older than
 * `since` (ms, by `timeOf`) or `max` items: what a chart of the last minutes needs, and no more.
 */
export async function newest(operationId, query, { since, timeOf, max = 1000 }) {
  const items = [];
  let after;
  for (;;) {
    const page = await api(operationId, { query: { ...query, limit: 100, startingAfter: after } });
    items.push(...page.data);
    if (!page.hasMore || items.length >= max || page.data.length === 0 || Date.parse(timeOf(page.data.at(-1))) < since) return items;
    after = page.data.at(-1).id;
  }
}

// A delivery's attempts, read again only when it changed: a live refresh re-reads what moved, so
// the dashboard's own calls do not crowd the request journal (they are API calls, journaled).
const details = new Map();
export async function deliveryDetail(d) {
  const key = `${state.env}:${d.id}`;
  const known = details.get(key);
  if (known && known.updatedAt === d.updatedAt && known.attemptCount === d.attemptCount) return known;
  const detail = await api('getDelivery', { params: { id: d.id } });
  if (details.size > 500) details.clear();
  details.set(key, detail);
  return detail;
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
        class: 'token card',
        onsubmit: (e) => {
          e.preventDefault();
          sessionStorage.setItem(TOKEN_KEY, input.value.trim());
          makeClients();
          asking = null;
          form.remove();
          // The change feed too, if it was open already (at start it opens once the keys are read).
          hooks.tokenChanged();
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
