// The sandbox's settings: merchants and keys, the webhook, snapshots, faults and chaos.
import { operationPath } from './client.js';
import { api, state } from './api.js';
import { button, clip, h, json, table, time } from './dom.js';

export async function merchantsView() {
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
      h('code', {}, state.keys[state.env].partnerKey),
      ', merchant ',
      h('code', {}, state.keys[state.env].merchantKey),
    ),
  ];
}

export async function webhookView() {
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

export async function snapshotsView() {
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

export async function faultsView() {
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
