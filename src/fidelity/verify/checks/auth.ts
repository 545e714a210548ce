import { randomBytes } from 'node:crypto';
import { expectError } from '../expect.js';
import { defineChecks } from '../types.js';

/** 32 base62 characters: the shape of a real key's tail (CONTRACT §1). */
const tail = () =>
  randomBytes(48)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, '')
    .slice(0, 32)
    .padEnd(32, '0');

/** CONTRACT §1–§2: who may call what. Each asks the webhook (a read that changes nothing) or a create with a bad key. */
export const authChecks = defineChecks([
  {
    id: 'auth.missing-key',
    section: '§2',
    title: 'a request without a key is 401 unauthorized',
    async run(ctx) {
      expectError(ctx.contract, await ctx.call('getWebhook'), 401, 'unauthorized');
      return undefined;
    },
  },
  {
    id: 'auth.malformed-key',
    section: '§2',
    title: 'a key that is not a key is 401 unauthorized',
    async run(ctx) {
      expectError(ctx.contract, await ctx.call('getWebhook', { key: 'svc-verify-not-a-key' }), 401, 'unauthorized');
      return undefined;
    },
  },
  {
    id: 'auth.unknown-key',
    section: '§1',
    title: 'a well-formed key the service never issued is 401 unauthorized',
    async run(ctx) {
      expectError(ctx.contract, await ctx.call('getWebhook', { key: `pt_test_${tail()}` }), 401, 'unauthorized');
      return undefined;
    },
  },
  {
    id: 'auth.merchant-key-on-partner-endpoint',
    section: '§2',
    title: 'a merchant key on a partner endpoint is 403 forbidden_key_type',
    async run(ctx) {
      expectError(ctx.contract, await ctx.call('getWebhook', { key: ctx.requireMerchantKey() }), 403, 'forbidden_key_type');
      return undefined;
    },
  },
  {
    id: 'auth.partner-key-on-merchant-endpoint',
    section: '§2',
    title: 'a partner key on the merchant create is 403 forbidden_key_type',
    async run(ctx) {
      const a = await ctx.call('createInvoice', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body: { amount: '10.00', referenceId: ctx.marker() } });
      expectError(ctx.contract, a, 403, 'forbidden_key_type');
      return undefined;
    },
  },
]);
