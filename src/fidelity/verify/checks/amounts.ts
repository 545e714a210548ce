import { str } from '../../json.js';
import type { VerifyContext } from '../context.js';
import { idOf } from '../context.js';
import { expectEqual, expectError, expectStatus } from '../expect.js';
import { defineChecks } from '../types.js';

/** A partner invoice create with this amount, marked. */
async function createWith(ctx: VerifyContext, amount: unknown) {
  const { merchantId } = await ctx.merchant();
  return ctx.call('createPartnerInvoice', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body: { merchantId, amount, referenceId: ctx.marker() } });
}

/** Each of these is refused with validation_failed naming `amount`. */
async function refused(ctx: VerifyContext, amounts: unknown[]) {
  for (const amount of amounts) expectError(ctx.contract, await createWith(ctx, amount), 400, 'validation_failed', 'amount');
}

/** CONTRACT §2: amounts are decimal strings above zero, at most 6 decimals, returned as sent. */
export const amountChecks = defineChecks([
  {
    id: 'amounts.number-refused',
    section: '§2',
    title: 'an amount sent as a JSON number is 400 validation_failed',
    async run(ctx) {
      await refused(ctx, [10, 10.5]);
      return undefined;
    },
  },
  {
    id: 'amounts.zero-refused',
    section: '§2',
    title: 'an amount of zero is 400 validation_failed',
    async run(ctx) {
      await refused(ctx, ['0', '0.00']);
      return undefined;
    },
  },
  {
    id: 'amounts.format',
    section: '§2',
    title: 'an amount with more than 6 decimals, a sign, an exponent or a leading zero is 400 validation_failed',
    async run(ctx) {
      await refused(ctx, ['1.1234567', '-1', '1e3', '01.5', ' 1', '1.']);
      return undefined;
    },
  },
  {
    id: 'amounts.returned-as-sent',
    section: '§2',
    title: 'amount is returned as sent, amountReceived with as many fraction digits',
    async run(ctx) {
      for (const [amount, received] of [
        ['12.5', '0.0'],
        ['7', '0'],
        ['0.000001', '0.000000'],
      ] as const) {
        const a = await createWith(ctx, amount);
        expectStatus(a, 201);
        expectEqual([str(a.json, 'amount'), str(a.json, 'amountReceived')], [amount, received], `amount and amountReceived for "${amount}"`);
      }
      return undefined;
    },
  },
  {
    id: 'amounts.received-digits',
    section: '§2',
    title: 'after payments, amountReceived keeps the amount’s digits, more only when a payment needs them',
    async run(ctx) {
      await ctx.requireTestHelpers();
      const invoice = await ctx.partnerInvoice({ amount: '10.00' });
      expectStatus(await ctx.pay(idOf(invoice), { amount: '2.5' }), 201);
      let read = await ctx.call('getPartnerInvoice', { key: ctx.partnerKey, params: { id: idOf(invoice) } });
      expectEqual(str(read.json, 'amountReceived'), '2.50', 'amountReceived after paying 2.5 of 10.00');
      expectStatus(await ctx.pay(idOf(invoice), { amount: '0.001' }), 201);
      read = await ctx.call('getPartnerInvoice', { key: ctx.partnerKey, params: { id: idOf(invoice) } });
      expectEqual(str(read.json, 'amountReceived'), '2.501', 'amountReceived after paying 0.001 more');
      return undefined;
    },
  },
]);
