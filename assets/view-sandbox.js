// The sandbox's settings: merchants and keys, the webhook, snapshots, faults and chaos.
import { operationPath } from './client.js';
import { api, state } from './api.js';
import { button, card, clip, copyable, facts, field, h, json, status, table, time } from './dom.js';

export async function merchantsView() {
  const page = await api('listMerchants', { query: { limit: 100 } });
  const keys = state.keys[state.env];
  return [
    h('div', { class: 'page-head' }, h('h1', {}, 'Merchants')),
    card(
      `Default keys (${state.env})`,
      facts([
        ['Partner key', copyable(keys.partnerKey, { label: 'partner key' })],
        ['Merchant key', copyable(keys.merchantKey, { label: 'merchant key' })],
      ]),
    ),
    card(
      null,
      table(
        ['id', 'name', 'tenant', 'status', 'chains', ''],
        page.data.map((m) =>
          h(
            'tr',
            {},
            h('td', {}, copyable(m.merchantId, { label: 'merchant id' })),
            h('td', {}, clip(m.name)),
            h('td', {}, clip(m.externalTenantId)),
            h('td', {}, status(m.integrationStatus)),
            h('td', {}, m.networkIds ? m.networkIds.join(', ') : 'all'),
            h(
              'td',
              {},
              button(
                'Mint a key',
                async () => {
                  const k = await api('createMerchantKey', { params: { id: m.merchantId } });
                  return `New key (shown once): ${k.merchantKey}`;
                },
                { class: 'secondary', 'aria-label': `Mint a key for ${m.name}` },
              ),
            ),
          ),
        ),
        'Merchants',
      ),
    ),
  ];
}

export async function webhookView() {
  let config = null;
  try {
    config = await api('getWebhook');
  } catch {}
  return [
    h('div', { class: 'page-head' }, h('h1', {}, 'Webhook')),
    config
      ? card(`Configuration (${state.env})`, [
          facts([
            ['URL', copyable(config.url, { label: 'webhook URL' })],
            ['Enabled', config.enabled ? 'yes' : 'no (svc webhook set --enable)'],
            ['Secret', config.secretConfigured ? 'configured' : 'none'],
            ['Custom headers', Object.keys(config.customHeaders).length ? Object.keys(config.customHeaders).join(', ') : 'none'],
            ['Updated', time(config.updatedAt)],
          ]),
          h('details', {}, h('summary', {}, 'As JSON'), json(config)),
        ])
      : card(null, h('p', { class: 'muted' }, 'No webhook configured in this environment (svc webhook set --url …).')),
    h('p', { class: 'muted' }, h('code', {}, 'svc webhook listen'), ' registrations show as deliveries with target listener.'),
  ];
}

export async function snapshotsView() {
  const list = await api('listSnapshots');
  const name = h('input', { id: 'snapshot-name', value: 'snapshot-1', autocomplete: 'off' });
  return [
    h('div', { class: 'page-head' }, h('h1', {}, 'Snapshots')),
    card(
      'Save the sandbox',
      h(
        'div',
        { class: 'form-row' },
        field('Snapshot name', name),
        button('Save', () => api('saveSnapshot', { body: { name: name.value } })),
      ),
    ),
    card(
      null,
      table(
        ['name', 'saved at', 'size', ''],
        list.data.map((s) =>
          h(
            'tr',
            {},
            h('td', {}, clip(s.name)),
            h('td', {}, time(s.createdAt)),
            h('td', { class: 'num' }, `${Math.round(s.bytes / 1024)} KiB`),
            h(
              'td',
              {},
              button('Restore', () => api('restoreSnapshot', { params: { name: s.name } }), { class: 'secondary', 'aria-label': `Restore ${s.name}` }),
            ),
          ),
        ),
        'Snapshots',
      ),
    ),
  ];
}

export async function faultsView() {
  const [faults, chaos] = await Promise.all([api('listFaults'), api('getWebhookChaos')]);
  // The example and default are the contract's own paths, not written here (issue 26).
  const path = h('input', { id: 'fault-path', value: operationPath('createInvoice'), autocomplete: 'off' });
  const code = h('input', { id: 'fault-status', value: '503', size: 4, inputmode: 'numeric', autocomplete: 'off' });
  return [
    h('div', { class: 'page-head' }, h('h1', {}, 'Faults & chaos')),
    card('API faults', [
      h(
        'div',
        { class: 'form-row' },
        field('Path', path),
        field('Answer with status', code),
        button('Add fault (next request, after commit)', () =>
          api('createFault', {
            body: { match: { path: path.value }, action: { status: Number(code.value) }, when: 'after_commit', times: 1 },
          }),
        ),
        button('Clear all', () => api('clearFaults'), { class: 'secondary' }),
      ),
      table(
        ['id', 'match', 'action', 'when', 'left', 'fired'],
        faults.data.map((f) =>
          h(
            'tr',
            {},
            h('td', {}, h('code', { title: f.id }, f.id.slice(0, 8))),
            h('td', {}, clip(`${f.match.method ?? 'any'} ${f.match.path ?? 'any API path'}`)),
            h('td', {}, clip(JSON.stringify(f.action))),
            h('td', {}, f.when),
            h('td', { class: 'num' }, f.times ?? '∞'),
            h('td', { class: 'num' }, f.fired),
          ),
        ),
        'Faults in force',
      ),
    ]),
    card('Webhook chaos', [
      chaos.active ? json(chaos) : h('p', { class: 'muted' }, 'No webhook chaos in force.'),
      h(
        'div',
        { class: 'buttons' },
        button('Duplicate every delivery', () => api('putWebhookChaos', { body: { duplicate: 1 } }), { class: 'secondary' }),
        button('End chaos', () => api('deleteWebhookChaos'), { class: 'secondary' }),
      ),
    ]),
  ];
}
