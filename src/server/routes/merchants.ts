import { findMerchant, listMerchants } from '../../store/repos/merchants.js';
import { createMerchant, merchantForPartner } from '../actions/create-merchant.js';
import { presentMerchant } from '../presenters.js';
import type { AuthedInput, RouteDef } from '../route.js';
import { listQuery } from '../validation/common.js';
import { parseWith } from '../validation/parse.js';
import { createMerchantBody, merchantList, merchantSchema, type CreateMerchantBody } from '../validation/merchants.js';
import { cursorOf, page } from './pagination.js';

export const merchantRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/partner/merchants',
    auth: 'partner',
    body: createMerchantBody,
    idempotent: { endpoint: 'create-merchant', tenantScoped: true },
    rejectFeeFields: true,
    doc: {
      summary: 'Create a sub-merchant',
      tag: 'Merchants',
      response: { status: 201, schema: merchantSchema },
      errors: ['fee_fields_not_allowed', 'external_tenant_id_taken'],
    },
    handle: (input: AuthedInput<CreateMerchantBody>, deps) => ({
      status: 201,
      body: presentMerchant(createMerchant(deps, input.principal, input.body), deps.baseUrl()),
    }),
  },
  {
    method: 'GET',
    path: '/v1/partner/merchants',
    auth: 'partner',
    doc: {
      summary: "List the partner's merchants, newest first",
      tag: 'Merchants',
      extension: true,
      query: listQuery,
      response: { status: 200, schema: merchantList },
    },
    handle: (input: AuthedInput<undefined>, deps) => {
      const q = parseWith(listQuery, Object.fromEntries(input.query));
      const { partnerId, environment } = input.principal;
      const beforeSeq = cursorOf(q.startingAfter, (id) => {
        const m = findMerchant(deps.store, id);
        return m && m.partner_id === partnerId && m.environment === environment ? m : undefined;
      });
      const rows = listMerchants(deps.store, partnerId, environment, { limit: q.limit, beforeSeq });
      return { status: 200, body: page(rows, q.limit, (r) => presentMerchant(r, deps.baseUrl())) };
    },
  },
  {
    method: 'GET',
    path: '/v1/partner/merchants/:merchantId',
    auth: 'partner',
    doc: { summary: 'Get one merchant', tag: 'Merchants', extension: true, response: { status: 200, schema: merchantSchema }, errors: ['merchant_not_found'] },
    handle: (input: AuthedInput<undefined>, deps) => ({
      status: 200,
      body: presentMerchant(merchantForPartner(deps, input.principal, input.params.merchantId!), deps.baseUrl()),
    }),
  },
];
