// The deliveries views: the list (resend failed), and one delivery with its attempts.
import { api } from './api.js';
import { button, clip, go, h, json, pre, status, table, time } from './dom.js';

export function deliveryTable(list) {
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

export async function deliveriesView(params) {
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

export async function deliveryView(id) {
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
