import { randomUUID } from 'node:crypto';
import { at, str } from '../../json.js';
import { idOf } from '../context.js';
import { expectEqual, expectError, expectShape, expectStatus } from '../expect.js';
import { defineChecks } from '../types.js';

/** CONTRACT §3 and §6: the statuses an invoice goes through, driven by the test helpers. */
export const lifecycleChecks = defineChecks([
  {
    id: 'lifecycle.paid',
    section: '§3',
    title: 'a confirmed payment of the whole amount makes the invoice PAID; the helper answers 201 {payment, invoice}',
    async run(ctx) {
      await ctx.requireTestHelpers();
      const invoice = await ctx.partnerInvoice({ amount: '10.00' });
      const a = await ctx.pay(idOf(invoice));
      expectStatus(a, 201);
      expectShape(ctx.contract, a);
      expectEqual(
        [str(a.json, 'invoice', 'status'), str(a.json, 'invoice', 'amountReceived'), at(a.json, 'payment', 'confirmed')],
        ['PAID', '10.00', true],
        'status, amountReceived, confirmed',
      );
      return undefined;
    },
  },
  {
    id: 'lifecycle.confirming',
    section: '§3',
    title: 'an unconfirmed payment makes it CONFIRMING; confirming it PAID; confirming again is 409 payment_already_confirmed',
    async run(ctx) {
      await ctx.requireTestHelpers();
      const invoice = await ctx.partnerInvoice({ amount: '10.00' });
      const seen = await ctx.pay(idOf(invoice), { confirmed: false });
      expectStatus(seen, 201);
      expectEqual(str(seen.json, 'invoice', 'status'), 'CONFIRMING', 'status after an unconfirmed payment');
      const params = { id: idOf(invoice), paymentId: str(seen.json, 'payment', 'id') ?? '' };
      const confirmed = await ctx.call('confirmTestPayment', { key: ctx.partnerKey, params });
      expectStatus(confirmed, 200);
      expectShape(ctx.contract, confirmed);
      expectEqual(str(confirmed.json, 'invoice', 'status'), 'PAID', 'status after the confirmation');
      expectError(ctx.contract, await ctx.call('confirmTestPayment', { key: ctx.partnerKey, params }), 409, 'payment_already_confirmed');
      return undefined;
    },
  },
  {
    id: 'lifecycle.partially-paid',
    section: '§3',
    title: 'a confirmed payment below the amount makes it PARTIALLY_PAID',
    async run(ctx) {
      await ctx.requireTestHelpers();
      const invoice = await ctx.partnerInvoice({ amount: '10.00' });
      const a = await ctx.pay(idOf(invoice), { amount: '4.00' });
      expectStatus(a, 201);
      expectEqual([str(a.json, 'invoice', 'status'), str(a.json, 'invoice', 'amountReceived')], ['PARTIALLY_PAID', '4.00'], 'status and amountReceived');
      return undefined;
    },
  },
  {
    id: 'lifecycle.paid-is-final',
    section: '§3',
    title: 'PAID is final: later payments only raise amountReceived',
    async run(ctx) {
      await ctx.requireTestHelpers();
      const invoice = await ctx.partnerInvoice({ amount: '10.00' });
      expectStatus(await ctx.pay(idOf(invoice), { amount: '12.00' }), 201);
      const more = await ctx.pay(idOf(invoice), { amount: '1.00' });
      expectStatus(more, 201);
      expectEqual([str(more.json, 'invoice', 'status'), str(more.json, 'invoice', 'amountReceived')], ['PAID', '13.00'], 'status and amountReceived');
      return undefined;
    },
  },
  {
    id: 'lifecycle.expire',
    section: '§6',
    title: 'expire makes an open invoice EXPIRED; expiring it again is 409 invoice_not_expirable',
    async run(ctx) {
      await ctx.requireTestHelpers();
      const invoice = await ctx.partnerInvoice();
      const a = await ctx.call('expireTestInvoice', { key: ctx.partnerKey, params: { id: idOf(invoice) } });
      expectStatus(a, 200);
      expectShape(ctx.contract, a);
      expectEqual(str(a.json, 'invoice', 'status'), 'EXPIRED', 'status');
      expectError(ctx.contract, await ctx.call('expireTestInvoice', { key: ctx.partnerKey, params: { id: idOf(invoice) } }), 409, 'invoice_not_expirable');
      return undefined;
    },
  },
  {
    id: 'lifecycle.paid-late',
    section: '§3',
    title: 'a payment on an EXPIRED invoice raises amountReceived and leaves it EXPIRED',
    async run(ctx) {
      await ctx.requireTestHelpers();
      const invoice = await ctx.partnerInvoice({ amount: '10.00' });
      expectStatus(await ctx.call('expireTestInvoice', { key: ctx.partnerKey, params: { id: idOf(invoice) } }), 200);
      const a = await ctx.pay(idOf(invoice), { amount: '10.00' });
      expectStatus(a, 201);
      expectEqual([str(a.json, 'invoice', 'status'), str(a.json, 'invoice', 'amountReceived')], ['EXPIRED', '10.00'], 'status and amountReceived');
      return undefined;
    },
  },
  {
    id: 'lifecycle.unknown-invoice',
    section: '§6',
    title: 'a test payment on an invoice that does not exist is 404 invoice_not_found',
    async run(ctx) {
      await ctx.requireTestHelpers();
      expectError(ctx.contract, await ctx.pay(randomUUID()), 404, 'invoice_not_found');
      return undefined;
    },
  },
]);
