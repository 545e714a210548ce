// The deliveries views: the list (deliveries per minute by outcome for the whole sandbox, the page's
// attempts over time, resend failed), and one delivery with its attempts over time.
import { api, deliveryDetail, newest } from './api.js';
import { laneChart, SHAPE_LEGEND } from './chart-lanes.js';
import { minuteChart, perMinute } from './chart-minutes.js';
import { button, card, clip, copyable, facts, field, go, h, json, pre, status, table, time } from './dom.js';
import { attemptMarks, deliveryLane } from './marks.js';
import { legend } from './svg.js';

/** The window the per-minute charts cover, in minutes of emulator time. */
export const WINDOW_MINUTES = 30;
const OUTCOMES = [
  { key: 'succeeded', label: 'succeeded', tone: 'ok' },
  { key: 'retrying', label: 'retrying', tone: 'warn' },
  { key: 'pending', label: 'pending', tone: 'info' },
  { key: 'failed', label: 'failed', tone: 'bad' },
];
const ATTEMPT_LEGEND = ['success', 'failure', 'manual', 'retry'].map((k) => SHAPE_LEGEND[k]);
const LANES = 12;

export function deliveryTable(list) {
  return table(
    ['delivery', 'event', 'target', 'status', 'attempts', 'last result', 'next attempt'],
    list.map((d) =>
      h(
        'tr',
        {},
        h('td', {}, copyable(d.id, { href: `#/deliveries/${d.id}`, label: 'delivery id', shown: `…${d.id.slice(-8)}` })),
        h('td', {}, `${d.eventType}`),
        h('td', {}, d.target ?? 'webhook'),
        h('td', {}, status(d.status)),
        h('td', { class: 'num' }, d.attemptCount),
        h('td', {}, clip(d.lastError ?? d.lastResponseStatus)),
        h('td', {}, time(d.nextAttemptAt)),
      ),
    ),
    'Deliveries, newest first',
  );
}

export async function deliveriesView(params) {
  const [page, clock] = await Promise.all([
    api('listDeliveries', { query: { limit: 25, status: params.get('status') ?? undefined, startingAfter: params.get('after') ?? undefined } }),
    api('getClock'),
  ]);
  const end = Date.parse(clock.now);
  const since = end - WINDOW_MINUTES * 60_000;
  const [recent, detailed] = await Promise.all([
    newest('listDeliveries', {}, { since, timeOf: (d) => d.createdAt }),
    Promise.all(page.data.slice(0, LANES).map(deliveryDetail)),
  ]);
  const filter = field(
    'Status',
    h(
      'select',
      { id: 'delivery-status', onchange: (e) => go(`#/deliveries${e.target.value ? `?status=${e.target.value}` : ''}`) },
      ['', 'pending', 'retrying', 'succeeded', 'failed'].map((s) => h('option', { value: s, selected: s === (params.get('status') ?? '') }, s || 'any status')),
    ),
  );
  const failed = page.data.filter((d) => d.status === 'failed');
  const lanes = laneChart({
    label: 'Attempts over time, per delivery',
    summary: `The attempts of the ${detailed.length} newest deliveries listed below.`,
    lanes: detailed.map((d) => ({ key: d.id, label: deliveryLane(d), marks: attemptMarks(d) })),
    legend: legend(h, ATTEMPT_LEGEND),
    className: 'attempts-chart',
  });
  const more = new URLSearchParams({ ...(params.get('status') ? { status: params.get('status') } : {}), after: page.data.at(-1)?.id ?? '' });
  return [
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Deliveries'),
      h(
        'div',
        { class: 'tools' },
        filter,
        button(
          `Resend failed on this page (${failed.length})`,
          async () => {
            for (const d of failed) await api('resendDelivery', { params: { id: d.id } }).catch(() => undefined);
          },
          { disabled: failed.length === 0, class: 'secondary' },
        ),
      ),
    ),
    h(
      'div',
      { class: 'charts' },
      card(
        'Deliveries per minute',
        minuteChart({
          label: `Deliveries per minute by outcome, last ${WINDOW_MINUTES} minutes`,
          noun: 'deliveries',
          series: OUTCOMES,
          buckets: perMinute(recent, { end, minutes: WINDOW_MINUTES, series: OUTCOMES, timeOf: (d) => d.createdAt, seriesOf: (d) => d.status }),
          className: 'deliveries-per-minute',
        }),
        { className: 'chart-card' },
      ),
      card('Attempts over time', detailed.length ? lanes : h('p', { class: 'muted' }, 'No deliveries yet.'), { className: 'chart-card' }),
    ),
    card(null, deliveryTable(page.data)),
    page.hasMore ? h('p', {}, h('a', { href: `#/deliveries?${more}`, class: 'button secondary' }, 'Older deliveries →')) : null,
  ];
}

export async function deliveryView(id) {
  const d = await api('getDelivery', { params: { id } });
  const ok = (a) => !a.error && a.responseStatus >= 200 && a.responseStatus < 300;
  return [
    h('p', { class: 'crumbs' }, h('a', { href: '#/deliveries' }, 'Deliveries'), ' / ', h('span', { class: 'mono' }, `…${d.id.slice(-12)}`)),
    h(
      'div',
      { class: 'page-head detail' },
      h('h1', {}, 'Delivery ', status(d.status)),
      h(
        'div',
        { class: 'tools' },
        copyable(d.id, { label: 'delivery id' }),
        button('Resend', () => api('resendDelivery', { params: { id } })),
      ),
    ),
    card(
      null,
      facts([
        ['Event', `${d.eventType} (${d.eventId})`],
        ['Invoice', copyable(d.invoiceId, { href: `#/invoices/${d.invoiceId}`, label: 'invoice id' })],
        ['URL', clip(d.url)],
        ['Target', d.target],
        ['Attempts', String(d.attemptCount)],
        ['Next attempt', time(d.nextAttemptAt)],
      ]),
    ),
    card(
      'Attempts over time',
      laneChart({
        label: `Attempts of delivery ${d.id}`,
        summary: `${d.attempts.length} attempts, ${d.attempts.filter(ok).length} succeeded${d.nextAttemptAt ? `; next at ${time(d.nextAttemptAt)}` : ''}.`,
        lanes: [{ key: d.id, label: deliveryLane(d), marks: attemptMarks(d) }],
        legend: legend(h, ATTEMPT_LEGEND),
        className: 'attempts-chart',
      }),
    ),
    card(
      'Attempts',
      h(
        'ol',
        { class: 'entries' },
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
              h('p', { class: 'label' }, 'Response body'),
              pre(a.responseBody ?? '(none)'),
            ),
          ),
        ),
      ),
    ),
    card('Payload', json(d.payload)),
  ];
}
