// The request journal, filtered by path and status.
import { operationPath } from './client.js';
import { api } from './api.js';
import { button, go, h, pre, pretty, time } from './dom.js';

export async function requestsView(params) {
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
