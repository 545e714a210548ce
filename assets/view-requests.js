// The request journal: status classes per minute and each request's latency over the last window,
// then the entries, filtered by path and status (the dashboard's own requests left out unless asked).
import { operationPath } from './client.js';
import { api, newest } from './api.js';
import { latencyChart } from './chart-latency.js';
import { minuteChart, perMinute } from './chart-minutes.js';
import { button, card, field, go, h, pre, pretty, time } from './dom.js';
import { WINDOW_MINUTES } from './view-deliveries.js';

const CLASSES = [
  { key: '2xx', label: '2xx', tone: 'ok' },
  { key: '3xx', label: '3xx', tone: 'info' },
  { key: '4xx', label: '4xx', tone: 'warn' },
  { key: '5xx', label: '5xx', tone: 'bad' },
  { key: 'dropped', label: 'dropped', tone: 'neutral' },
];
/** `2xx` … `5xx`, or `dropped` for a connection closed without an answer (a `drop` fault). */
export const statusClass = (status) => (status === null ? 'dropped' : `${String(status)[0]}xx`);

export async function requestsView(params) {
  // This page's own calls (and the rest of the dashboard's) are not what the user is looking for.
  const filters = {
    path: params.get('path') ?? undefined,
    status: params.get('status') ?? undefined,
    fromDashboard: params.get('all') ? undefined : false,
  };
  const [page, clock] = await Promise.all([api('listRequests', { query: { ...filters, limit: 50 } }), api('getClock')]);
  const end = Date.parse(clock.now);
  const since = end - WINDOW_MINUTES * 60_000;
  const recent = await newest('listRequests', filters, { since, timeOf: (e) => e.at });
  const buckets = perMinute(recent, { end, minutes: WINDOW_MINUTES, series: CLASSES, timeOf: (e) => e.at, seriesOf: (e) => statusClass(e.status) });
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
    field('Path starts with', h('input', { id: 'filter-path', name: 'path', value: params.get('path') ?? '', placeholder: operationPath('createInvoice') })),
    field('Status', h('input', { id: 'filter-status', name: 'status', value: params.get('status') ?? '', size: 5, inputmode: 'numeric', placeholder: '400' })),
    h(
      'label',
      { class: 'check' },
      h('input', { type: 'checkbox', name: 'all', value: '1', checked: Boolean(params.get('all')) }),
      "the dashboard's own requests too",
    ),
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'submit' }, 'Filter'),
      button('Clear the journal', () => api('clearRequests'), { class: 'secondary' }),
    ),
  );
  return [
    h('div', { class: 'page-head' }, h('h1', {}, 'Request journal')),
    card(null, form),
    h(
      'div',
      { class: 'grid-2' },
      card(
        'Status classes per minute',
        minuteChart({
          label: `Requests per minute by status class, last ${WINDOW_MINUTES} minutes`,
          noun: 'requests',
          series: CLASSES,
          buckets,
          className: 'requests-per-minute',
        }),
        { className: 'chart-card' },
      ),
      card('Latency', latencyChart({ entries: recent, start: buckets[0].start, end: buckets.at(-1).start + 60_000 }), { className: 'chart-card' }),
    ),
    card(
      `Entries (${page.data.length}${page.hasMore ? '+' : ''})`,
      page.data.length
        ? h(
            'ol',
            { class: 'entries' },
            page.data.map((r) =>
              h(
                'li',
                { 'data-class': statusClass(r.status) },
                h(
                  'details',
                  {},
                  h(
                    'summary',
                    {},
                    `${time(r.at)} ${r.method} ${r.path}${r.query ? `?${r.query}` : ''} → ${r.status ?? 'dropped'} · ${Math.round(r.durationMs)} ms${r.fault ? ` · fault ${r.fault}` : ''}${r.fromDashboard ? ' · dashboard' : ''}`,
                  ),
                  h('p', { class: 'label' }, 'Request'),
                  pre(r.requestBody ? pretty(r.requestBody) : '(no body)'),
                  h('p', { class: 'label' }, 'Response'),
                  pre(r.responseBody ? pretty(r.responseBody) : '(no body)'),
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No requests match.'),
    ),
  ];
}
