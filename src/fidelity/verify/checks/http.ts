import { API_PATH_PREFIX } from '../../../contract/operation.js';
import { expectError, expectSuccess, expectThat, summary } from '../expect.js';
import { defineChecks } from '../types.js';

/** CONTRACT §2's HTTP conventions, on create-merchant (a partner key is all they need). */
export const httpChecks = defineChecks([
  {
    id: 'http.request-id',
    section: '§2',
    title: 'every answer carries Request-Id, successes and errors alike',
    async run(ctx) {
      const answers = [await ctx.call('listMerchants', { key: ctx.partnerKey, query: { limit: 1 } }), await ctx.call('getWebhook')];
      for (const a of answers) expectThat(a.headers['request-id'] !== undefined, `a Request-Id header on ${a.label}`, 'none');
      return undefined;
    },
  },
  {
    id: 'http.unknown-route',
    section: '§2',
    title: 'an unknown route is 404 not_found',
    async run(ctx) {
      expectError(ctx.contract, await ctx.send({ method: 'GET', path: `${API_PATH_PREFIX}svc-verify-no-such-route`, key: ctx.partnerKey }), 404, 'not_found');
      return undefined;
    },
  },
  {
    id: 'http.method-not-allowed',
    section: '§2',
    title: 'a wrong method on a known route is 405 method_not_allowed',
    async run(ctx) {
      expectError(ctx.contract, await ctx.send({ method: 'DELETE', path: ctx.path('createPartnerInvoice'), key: ctx.partnerKey }), 405, 'method_not_allowed');
      return undefined;
    },
  },
  {
    id: 'http.invalid-json',
    section: '§2',
    title: 'a body that is not JSON is 400 invalid_json',
    async run(ctx) {
      const a = await ctx.call('createMerchant', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), raw: '{"externalTenantId": "svc-verify-' });
      expectError(ctx.contract, a, 400, 'invalid_json');
      return undefined;
    },
  },
  {
    id: 'http.body-not-object',
    section: '§2',
    title: 'a JSON body that is not an object is 400 invalid_json',
    async run(ctx) {
      expectError(
        ctx.contract,
        await ctx.call('createMerchant', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), raw: '["svc-verify"]' }),
        400,
        'invalid_json',
      );
      return undefined;
    },
  },
  {
    id: 'http.unsupported-media-type',
    section: '§2',
    title: 'a body sent as another Content-Type is 415 unsupported_media_type',
    async run(ctx) {
      const a = await ctx.call('createMerchant', {
        key: ctx.partnerKey,
        idempotencyKey: ctx.marker(),
        raw: 'externalTenantId=svc-verify',
        contentType: 'application/x-www-form-urlencoded',
      });
      expectError(ctx.contract, a, 415, 'unsupported_media_type');
      return undefined;
    },
  },
  {
    id: 'http.payload-too-large',
    section: '§2',
    title: 'a body over 1 MiB is 413 payload_too_large',
    async run(ctx) {
      const raw = JSON.stringify({ externalTenantId: ctx.marker(), name: 'svc verify', email: 'svc-verify@example.com', pad: 'x'.repeat(1024 * 1024) });
      expectError(ctx.contract, await ctx.call('createMerchant', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), raw }), 413, 'payload_too_large');
      return undefined;
    },
  },
  {
    id: 'http.validation-param',
    section: '§2',
    title: 'a missing field is 400 validation_failed with param naming it',
    async run(ctx) {
      const { merchantId } = await ctx.merchant();
      const a = await ctx.call('createPartnerInvoice', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body: { merchantId, referenceId: ctx.marker() } });
      expectError(ctx.contract, a, 400, 'validation_failed', 'amount');
      return undefined;
    },
  },
  {
    id: 'http.unknown-fields-ignored',
    section: '§2',
    title: 'unknown fields in a body are ignored, not refused',
    async run(ctx) {
      const { merchantId } = await ctx.merchant();
      const body = { merchantId, amount: '10.00', referenceId: ctx.marker(), svcVerifyUnknownField: 'ignored' };
      const a = await ctx.call('createPartnerInvoice', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body });
      expectSuccess(a, 'a create with an unknown field');
      expectThat(a.status === 201, '201', summary(a));
      return undefined;
    },
  },
]);
