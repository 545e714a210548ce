// The invoices views: the list, and one invoice with its test actions, events and deliveries.
import { api, state } from './api.js';
import { deliveryTable } from './view-deliveries.js';
import { button, clip, go, h, json, status, table, time } from './dom.js';

export async function invoicesView(params) {
  const page = await api('listPartnerInvoices', {
    query: { limit: 25, status: params.get('status') ?? undefined, startingAfter: params.get('after') ?? undefined },
  });
  const filter = h(
    'select',
    { 'aria-label': 'status filter', onchange: (e) => go(`#/invoices${e.target.value ? `?status=${e.target.value}` : ''}`) },
    ['', 'CREATED', 'CONFIRMING', 'PARTIALLY_PAID', 'PAID', 'EXPIRED'].map((s) =>
      h('option', { value: s, selected: s === (params.get('status') ?? '') }, s || 'any status'),
    ),
  );
  const rows = page.data.map((i) =>
    h(
      'tr',
      {},
      h('td', {}, h('a', { href: `#/invoices/${i.id}` }, i.id)),
      h('td', {}, status(i.status)),
      h('td', {}, `${i.amount}`),
      h('td', {}, i.amountReceived),
      h('td', {}, clip(i.referenceId)),
      h('td', {}, time(i.expiresAt)),
    ),
  );
  const more = page.hasMore
    ? h(
        'a',
        { href: `#/invoices?${new URLSearchParams({ ...(params.get('status') ? { status: params.get('status') } : {}), after: page.data.at(-1).id })}` },
        'Older →',
      )
    : null;
  return [h('h1', {}, 'Invoices'), filter, table(['id', 'status', 'amount', 'received', 'reference', 'expires'], rows), more];
}

export async function invoiceView(id) {
  const [inv, events, deliveries] = await Promise.all([
    api('getPartnerInvoice', { params: { id } }),
    api('listInvoiceEvents', { params: { id } }),
    api('listDeliveries', { query: { invoiceId: id, limit: 100 } }),
  ]);
  const left = Math.max(0, Number(inv.amount) - Number(inv.amountReceived));
  const pay = (amount, confirmed = true) => api('createTestPayment', { params: { id }, body: { amount: amount.toFixed(2), confirmed } });
  const actions =
    inv.environment === 'test'
      ? h(
          'div',
          { class: 'actions' },
          button('Pay in full', () => pay(left || Number(inv.amount))),
          button('Pay part', () => pay(Math.max(0.01, (left || Number(inv.amount)) / 2))),
          button('Overpay', () => pay((left || 0) + 1)),
          button('Pay unconfirmed', async () => {
            const r = await pay(left || Number(inv.amount), false);
            state.unconfirmed.set(id, [...(state.unconfirmed.get(id) ?? []), r.payment.id]);
          }),
          button('Expire', () => api('expireTestInvoice', { params: { id } })),
        )
      : h('p', { class: 'dim' }, 'Test helpers work on test invoices only.');
  const unconfirmed = state.unconfirmed.get(id) ?? [];
  return [
    h('h1', {}, 'Invoice ', h('code', {}, inv.id)),
    h(
      'dl',
      {},
      [
        ['status', status(inv.status)],
        ['amount', inv.amount],
        ['received', inv.amountReceived],
        ['merchant', inv.merchantId],
        ['reference', inv.referenceId ?? '—'],
        ['expires', time(inv.expiresAt)],
        ['checkout', h('a', { href: inv.checkoutUrl }, inv.checkoutUrl)],
      ].flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    actions,
    unconfirmed.length
      ? h(
          'div',
          { class: 'actions' },
          unconfirmed.map((paymentId) =>
            button(`Confirm payment ${paymentId.slice(0, 8)}`, async () => {
              await api('confirmTestPayment', { params: { id, paymentId } });
              state.unconfirmed.set(
                id,
                (state.unconfirmed.get(id) ?? []).filter((p) => p !== paymentId),
              );
            }),
          ),
        )
      : null,
    h('h2', {}, 'Addresses'),
    table(
      ['chain', 'network', 'address', 'tokens'],
      inv.addresses.map((a) =>
        h(
          'tr',
          {},
          h('td', {}, a.chainName),
          h('td', {}, a.networkId),
          h('td', {}, h('code', {}, a.depositAddress)),
          h('td', {}, a.tokens.map((t) => t.symbol).join(', ')),
        ),
      ),
    ),
    h('h2', {}, 'Events'),
    h(
      'ol',
      { class: 'timeline' },
      events.data.map((e) =>
        h('li', {}, h('details', {}, h('summary', {}, `${e.data.sequence}. ${e.type} · ${time(e.createdAt)} · ${e.data.status}`), json(e))),
      ),
    ),
    h('h2', {}, 'Deliveries'),
    deliveryTable(deliveries.data),
  ];
}
