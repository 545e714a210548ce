// The invoices views: the list, and one invoice with its test actions, its timeline (events,
// payments, each delivery's attempts, the expiry, on one time axis), deliveries and addresses.
import { api, deliveryDetail } from './api.js';
import { laneChart, SHAPE_LEGEND } from './chart-lanes.js';
import { button, card, clip, clockTime, copyable, facts, field, go, h, json, status, table, time } from './dom.js';
import { attemptMarks, deliveryLane, eventMark, paymentMark } from './marks.js';
import { TEST_ACTION_LABELS, TEST_ACTIONS, testAmount, unavailableActions } from './page-rules.js';
import { legend } from './svg.js';
import { deliveryTable } from './view-deliveries.js';

const STATUSES = ['CREATED', 'CONFIRMING', 'PARTIALLY_PAID', 'PAID', 'EXPIRED'];

export async function invoicesView(params) {
  const page = await api('listPartnerInvoices', {
    query: { limit: 25, status: params.get('status') ?? undefined, startingAfter: params.get('after') ?? undefined },
  });
  const filter = field(
    'Status',
    h(
      'select',
      { id: 'invoice-status', onchange: (e) => go(`#/invoices${e.target.value ? `?status=${e.target.value}` : ''}`) },
      ['', ...STATUSES].map((s) => h('option', { value: s, selected: s === (params.get('status') ?? '') }, s || 'any status')),
    ),
  );
  const rows = page.data.map((i) =>
    h(
      'tr',
      {},
      h('td', {}, copyable(i.id, { href: `#/invoices/${i.id}`, label: 'invoice id' })),
      h('td', {}, status(i.status)),
      h('td', { class: 'num' }, i.amount),
      h('td', { class: 'num' }, i.amountReceived),
      h('td', {}, clip(i.referenceId)),
      h('td', {}, time(i.expiresAt)),
    ),
  );
  const query = new URLSearchParams({ ...(params.get('status') ? { status: params.get('status') } : {}), after: page.data.at(-1)?.id ?? '' });
  return [
    h('div', { class: 'page-head' }, h('h1', {}, 'Invoices'), h('div', { class: 'tools' }, filter)),
    card(null, table(['id', 'status', 'amount', 'received', 'reference', 'expires'], rows, 'Invoices, newest first')),
    page.hasMore ? h('p', {}, h('a', { href: `#/invoices?${query}`, class: 'button secondary' }, 'Older invoices →')) : null,
  ];
}

export async function invoiceView(id) {
  const [inv, events, payments, deliveries] = await Promise.all([
    api('getPartnerInvoice', { params: { id } }),
    api('listInvoiceEvents', { params: { id } }),
    api('listInvoicePayments', { params: { id } }),
    api('listDeliveries', { query: { invoiceId: id, limit: 100 } }),
  ]);
  const detailed = await Promise.all(deliveries.data.map(deliveryDetail));
  const chains = new Map(inv.addresses.map((a) => [a.networkId, a.chainName]));
  return [
    h('p', { class: 'crumbs' }, h('a', { href: '#/invoices' }, 'Invoices'), ' / ', h('span', { class: 'mono' }, `…${inv.id.slice(-12)}`)),
    h('div', { class: 'page-head detail' }, h('h1', {}, 'Invoice ', status(inv.status)), copyable(inv.id, { label: 'invoice id' })),
    card(
      null,
      facts([
        ['Amount', h('span', { class: 'big' }, `${inv.amount} USD`)],
        ['Received', h('span', { class: 'big' }, `${inv.amountReceived} USD`)],
        ['Expires', time(inv.expiresAt)],
        ['Reference', inv.referenceId ?? '—'],
        ['Merchant', copyable(inv.merchantId, { label: 'merchant id' })],
        ['Checkout', copyable(inv.checkoutUrl, { href: inv.checkoutUrl, label: 'checkout URL' })],
      ]),
    ),
    testActions(inv, payments.data),
    timeline(inv, events.data, payments.data, detailed, chains),
    card(`Deliveries (${deliveries.data.length})`, deliveryTable(deliveries.data)),
    card(
      'Addresses',
      table(
        ['chain', 'network', 'address', 'tokens'],
        inv.addresses.map((a) =>
          h(
            'tr',
            {},
            h('td', {}, a.chainName),
            h('td', { class: 'num' }, a.networkId),
            h('td', {}, copyable(a.depositAddress, { label: `${a.chainName} deposit address` })),
            h('td', {}, a.tokens.map((t) => t.symbol).join(', ')),
          ),
        ),
      ),
    ),
  ];
}

/**
 * The test helpers, offered as the checkout page's test panel offers them: the same actions, words
 * and amounts, disabled with the same reasons where the invoice's state does not allow them (one
 * rule: src/domain/test-actions.ts, served as page-rules.js).
 */
function testActions(inv, payments) {
  if (inv.environment !== 'test') return card('Test actions', h('p', { class: 'muted' }, 'Test helpers work on test invoices only.'));
  const pending = payments.filter((p) => !p.confirmed);
  const why = unavailableActions({ status: inv.status, amount: inv.amount, amountReceived: inv.amountReceived, pendingCount: pending.length });
  const pay = (kind, confirmed = true) =>
    api('createTestPayment', { params: { id: inv.id }, body: { amount: testAmount(inv.amount, inv.amountReceived, kind), confirmed } });
  const run = {
    'pay-full': () => pay('full'),
    'pay-part': () => pay('part'),
    overpay: () => pay('over'),
    'pay-unconfirmed': () => pay('full', false),
    confirm: () => api('confirmTestPayment', { params: { id: inv.id, paymentId: pending[0].id } }),
    expire: () => api('expireTestInvoice', { params: { id: inv.id } }),
  };
  const reasons = TEST_ACTIONS.filter((a) => why[a]);
  return card(
    'Test actions',
    [
      h(
        'div',
        { class: 'actions test-actions' },
        TEST_ACTIONS.map((a) =>
          button(TEST_ACTION_LABELS[a], run[a], {
            class: 'secondary',
            'data-action': a,
            disabled: Boolean(why[a]),
            title: why[a],
            'aria-describedby': why[a] ? 'test-reasons' : undefined,
          }),
        ),
      ),
      h(
        'ul',
        { id: 'test-reasons', class: 'reasons muted small' },
        reasons.map((a) => h('li', {}, `${TEST_ACTION_LABELS[a]}: ${why[a]}`)),
      ),
    ],
    { className: 'test-card' },
  );
}

/** Created → payments → status changes → each event's deliveries and their attempts, the expiry marked. */
function timeline(inv, events, payments, deliveries, chains) {
  const lanes = [
    { key: 'status', label: 'Status (events)', marks: events.map(eventMark) },
    { key: 'payments', label: 'Payments', marks: payments.map((p) => paymentMark(p, chains.get(p.networkId) ?? `network ${p.networkId}`)) },
    ...deliveries.map((d) => ({ key: d.id, label: deliveryLane(d), marks: attemptMarks(d) })),
  ];
  const expiry = Date.parse(inv.expiresAt);
  const items = [...lanes.flatMap((l) => l.marks), { t: expiry, kind: 'expiry', text: `Expiry${inv.status === 'EXPIRED' ? '' : ' (due)'}`, tone: 'neutral' }];
  // Stable: at one instant, the lanes' order (event, payment, attempts) is kept.
  const ordered = items
    .map((m, i) => [m, i])
    .sort((a, b) => a[0].t - b[0].t || a[1] - b[1])
    .map(([m]) => m);
  const byKind = (k) => items.filter((m) => m.kind === k).length;
  const chart = laneChart({
    label: `Timeline of invoice ${inv.id}`,
    summary: `${byKind('event')} events, ${byKind('payment')} payments, ${byKind('attempt')} delivery attempts; expires ${time(inv.expiresAt)}.`,
    lanes,
    rules: [{ t: expiry, kind: 'expiry', label: `expires ${clockTime(expiry)}`, className: 'expiry' }],
    legend: legend(
      h,
      ['event', 'payment', 'success', 'failure', 'manual', 'retry', 'expiry'].map((k) => SHAPE_LEGEND[k]),
    ),
    className: 'timeline-chart',
  });
  const eventsById = new Map(events.map((e) => [`Event #${e.data.sequence} ${e.type} → ${e.data.status}`, e]));
  const list = h(
    'ol',
    { class: 'activity', 'aria-label': 'Timeline, oldest first' },
    ordered.map((m) => {
      const event = m.kind === 'event' ? eventsById.get(m.text) : null;
      const line = [
        h('time', { datetime: new Date(m.t).toISOString() }, clockTime(m.t)),
        h('span', { class: `kind ${m.tone ?? ''}` }, m.kind),
        h('span', { class: 'what' }, m.text),
      ];
      return h(
        'li',
        { 'data-kind': m.kind, 'data-at': new Date(m.t).toISOString() },
        event
          ? h('details', {}, h('summary', {}, line), json(event))
          : h('div', { class: 'row' }, line, m.txHash ? copyable(m.txHash, { label: 'transaction hash' }) : null),
      );
    }),
  );
  return card('Timeline', [chart, list], { className: 'timeline-card' });
}
