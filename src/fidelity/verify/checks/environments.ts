import { str } from '../../json.js';
import { expectEqual, expectError } from '../expect.js';
import { defineChecks } from '../types.js';

/** CONTRACT §1: the environment comes from the key, never from a body. */
export const environmentChecks = defineChecks([
  {
    id: 'environments.from-key',
    section: '§1',
    title: 'an invoice made with a test key is in the test environment',
    async run(ctx) {
      expectEqual(str((await ctx.partnerInvoice()).json, 'environment'), 'test', 'environment');
      return undefined;
    },
  },
  {
    id: 'environments.body-field-refused',
    section: '§2',
    title: '`environment` in a body is 400 environment_not_allowed, even when it names the key’s own',
    async run(ctx) {
      const { merchantId } = await ctx.merchant();
      const body = { merchantId, amount: '10.00', referenceId: ctx.marker(), environment: 'test' };
      expectError(
        ctx.contract,
        await ctx.call('createPartnerInvoice', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body }),
        400,
        'environment_not_allowed',
      );
      // The webhook's PUT too; refused before anything is stored.
      const put = await ctx.call('putWebhook', { key: ctx.partnerKey, body: { url: 'https://example.com/svc-verify', environment: 'test' } });
      expectError(ctx.contract, put, 400, 'environment_not_allowed');
      return undefined;
    },
  },
]);
