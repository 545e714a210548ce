import { randomUUID } from 'node:crypto';
import { at, str } from '../../json.js';
import type { VerifyContext } from '../context.js';
import { expectEqual, expectError, expectShape, expectStatus, expectSuccess, expectThat } from '../expect.js';
import { CheckSkipped, defineChecks } from '../types.js';
import type { Answer } from '../api.js';

/** A create-merchant body marked for this run. */
const merchantBody = (ctx: VerifyContext, externalTenantId = ctx.marker()) => ({ externalTenantId, name: 'svc verify', email: 'svc-verify@example.com' });

/** The reads are svc's extensions (CONTRACT §3): a deployment without the route is skipped, not failed. */
export function requireRoute(a: Answer, what: string): void {
  if (a.status === 404 && str(a.json, 'error', 'code') === 'not_found') throw new CheckSkipped(`the deployment has no ${what} (an svc extension): ${a.label}`);
  if (a.status === 405) throw new CheckSkipped(`the deployment has no ${what} (an svc extension): ${a.label}`);
}

/** Interface §4.1, CONTRACT §1–§3: sub-merchants. */
export const merchantChecks = defineChecks([
  {
    id: 'merchants.create',
    section: '§2',
    title: 'create-merchant answers 201 with the Merchant the document describes',
    async run(ctx) {
      const body = merchantBody(ctx);
      const a = await ctx.call('createMerchant', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body });
      expectStatus(a, 201);
      expectShape(ctx.contract, a);
      expectEqual(str(a.json, 'externalTenantId'), body.externalTenantId, 'externalTenantId');
      return undefined;
    },
  },
  {
    id: 'merchants.fee-fields',
    section: '§2',
    title: 'a field whose name contains "fee" (any case) is 400 fee_fields_not_allowed naming it',
    async run(ctx) {
      const a = await ctx.call('createMerchant', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body: { ...merchantBody(ctx), processingFEE: '1.5' } });
      expectError(ctx.contract, a, 400, 'fee_fields_not_allowed', 'processingFEE');
      return undefined;
    },
  },
  {
    id: 'merchants.tenant-taken',
    section: '§2',
    title: "a second merchant with the partner's externalTenantId (another key) is 409 external_tenant_id_taken",
    async run(ctx) {
      const { externalTenantId } = await ctx.merchant();
      const a = await ctx.call('createMerchant', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body: merchantBody(ctx, externalTenantId) });
      expectError(ctx.contract, a, 409, 'external_tenant_id_taken');
      return undefined;
    },
  },
  {
    id: 'merchants.get',
    section: '§3',
    title: 'GET of a merchant answers it as created',
    async run(ctx) {
      const { merchantId, externalTenantId } = await ctx.merchant();
      const a = await ctx.call('getMerchant', { key: ctx.partnerKey, params: { id: merchantId } });
      requireRoute(a, 'GET of one merchant');
      expectStatus(a, 200);
      expectShape(ctx.contract, a);
      expectEqual([str(a.json, 'merchantId'), str(a.json, 'externalTenantId')], [merchantId, externalTenantId], 'merchantId and externalTenantId');
      return undefined;
    },
  },
  {
    id: 'merchants.list',
    section: '§3',
    title: 'the merchant list is a page {data, hasMore}, newest first, with limit',
    async run(ctx) {
      await ctx.merchant();
      const made = await ctx.call('createMerchant', { key: ctx.partnerKey, idempotencyKey: ctx.marker(), body: merchantBody(ctx) });
      expectSuccess(made, 'a second merchant');
      const a = await ctx.call('listMerchants', { key: ctx.partnerKey, query: { limit: 1 } });
      requireRoute(a, 'merchant list');
      expectStatus(a, 200);
      expectShape(ctx.contract, a);
      const data = at(a.json, 'data');
      expectThat(Array.isArray(data) && data.length === 1, 'one merchant with limit=1', JSON.stringify(data).slice(0, 120));
      expectEqual(str(a.json, 'data', 0, 'merchantId'), str(made.json, 'merchantId'), 'the newest merchant first');
      expectEqual(at(a.json, 'hasMore'), true, 'hasMore');
      return undefined;
    },
  },
  {
    id: 'merchants.not-found',
    section: '§2',
    title: 'a merchant that does not exist is 404 merchant_not_found',
    async run(ctx) {
      const a = await ctx.call('getMerchant', { key: ctx.partnerKey, params: { id: randomUUID() } });
      requireRoute(a, 'GET of one merchant');
      expectError(ctx.contract, a, 404, 'merchant_not_found');
      return undefined;
    },
  },
]);
