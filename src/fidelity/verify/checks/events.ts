import { idOf, envelopeOf, type VerifyContext } from '../context.js';
import { expectEqual, expectStatus } from '../expect.js';
import { defineChecks } from '../types.js';
import { str } from '../../json.js';

/** An event as the checks compare it: type, sequence, envelope id suffix, status, token. */
interface Seen {
  type: string;
  sequence: unknown;
  id: string;
  status: unknown;
  token: unknown;
}

/**
 * Drives a new invoice with the test helpers (`drive` gets its id), waits for its `count` deliveries
 * and answers their events in sequence order (deliveries may arrive in any order).
 */
async function eventsOf(ctx: VerifyContext, count: number, drive: (invoiceId: string) => Promise<void>): Promise<{ id: string; events: Seen[] }> {
  await ctx.requireTestHelpers();
  await ctx.receiver();
  const invoice = await ctx.partnerInvoice({ amount: '10.00' });
  const id = idOf(invoice);
  await drive(id);
  const delivered = await ctx.deliveriesOf(id, count);
  const events = delivered
    .map((d) => envelopeOf(d))
    .map((e) => ({ type: e.type, sequence: e.data.sequence, id: e.id.slice(id.length), status: e.data.status, token: e.data.token }))
    .sort((a, b) => Number(a.sequence) - Number(b.sequence));
  return { id, events };
}

const event = (type: string, sequence: number, status: string, token: string | null): Seen => ({ type, sequence, id: `-${sequence}`, status, token });

/** CONTRACT §4: which events, in which order, with which sequence, status and token. */
export const eventChecks = defineChecks([
  {
    id: 'events.paid',
    section: '§4',
    title: 'create then pay in full gives invoice.created (1) and invoice.paid (2, PAID), no payment_detected',
    async run(ctx) {
      let token = '';
      const { events } = await eventsOf(ctx, 2, async (id) => {
        const paid = await ctx.pay(id);
        expectStatus(paid, 201, 'for the payment');
        token = str(paid.json, 'payment', 'token') ?? '';
      });
      expectEqual(events, [event('invoice.created', 1, 'CREATED', null), event('invoice.paid', 2, 'PAID', token)], 'events');
      return undefined;
    },
  },
  {
    id: 'events.payment-detected',
    section: '§4',
    title: 'an unconfirmed payment gives invoice.payment_detected (CONFIRMING); its confirmation invoice.paid',
    async run(ctx) {
      let token = '';
      const { events } = await eventsOf(ctx, 3, async (id) => {
        const seen = await ctx.pay(id, { confirmed: false });
        expectStatus(seen, 201, 'for the unconfirmed payment');
        token = str(seen.json, 'payment', 'token') ?? '';
        const confirmed = await ctx.call('confirmTestPayment', { key: ctx.partnerKey, params: { id, paymentId: str(seen.json, 'payment', 'id') ?? '' } });
        expectStatus(confirmed, 200, 'for the confirmation');
      });
      expectEqual(
        events,
        [event('invoice.created', 1, 'CREATED', null), event('invoice.payment_detected', 2, 'CONFIRMING', token), event('invoice.paid', 3, 'PAID', token)],
        'events',
      );
      return undefined;
    },
  },
  {
    id: 'events.partially-paid',
    section: '§4',
    title: 'a confirmed payment below the amount gives invoice.partially_paid (PARTIALLY_PAID)',
    async run(ctx) {
      let token = '';
      const { events } = await eventsOf(ctx, 2, async (id) => {
        const paid = await ctx.pay(id, { amount: '4.00' });
        expectStatus(paid, 201, 'for the payment');
        token = str(paid.json, 'payment', 'token') ?? '';
      });
      expectEqual(events, [event('invoice.created', 1, 'CREATED', null), event('invoice.partially_paid', 2, 'PARTIALLY_PAID', token)], 'events');
      return undefined;
    },
  },
  {
    id: 'events.overpaid',
    section: '§4',
    title: 'paying more than the amount gives invoice.paid, then invoice.overpaid',
    async run(ctx) {
      let token = '';
      const { events } = await eventsOf(ctx, 3, async (id) => {
        const paid = await ctx.pay(id, { amount: '12.00' });
        expectStatus(paid, 201, 'for the payment');
        token = str(paid.json, 'payment', 'token') ?? '';
      });
      expectEqual(
        events,
        [event('invoice.created', 1, 'CREATED', null), event('invoice.paid', 2, 'PAID', token), event('invoice.overpaid', 3, 'PAID', token)],
        'events',
      );
      return undefined;
    },
  },
  {
    id: 'events.expired',
    section: '§4',
    title: 'an unpaid invoice that expires gives invoice.expired (EXPIRED, token null)',
    async run(ctx) {
      const { events } = await eventsOf(ctx, 2, async (id) => {
        expectStatus(await ctx.call('expireTestInvoice', { key: ctx.partnerKey, params: { id } }), 200, 'for the expiry');
      });
      expectEqual(events, [event('invoice.created', 1, 'CREATED', null), event('invoice.expired', 2, 'EXPIRED', null)], 'events');
      return undefined;
    },
  },
  {
    id: 'events.paid-late',
    section: '§4',
    title: 'a payment confirmed on an expired invoice gives invoice.paid_late (EXPIRED)',
    async run(ctx) {
      let token = '';
      const { events } = await eventsOf(ctx, 3, async (id) => {
        expectStatus(await ctx.call('expireTestInvoice', { key: ctx.partnerKey, params: { id } }), 200, 'for the expiry');
        const paid = await ctx.pay(id, { amount: '10.00' });
        expectStatus(paid, 201, 'for the payment');
        token = str(paid.json, 'payment', 'token') ?? '';
      });
      expectEqual(
        events,
        [event('invoice.created', 1, 'CREATED', null), event('invoice.expired', 2, 'EXPIRED', null), event('invoice.paid_late', 3, 'EXPIRED', token)],
        'events',
      );
      return undefined;
    },
  },
]);
