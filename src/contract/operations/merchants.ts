import { defineOperations } from '../operation.js';

/** Interface document §4.1; the reads are extensions (CONTRACT §3). */
export const merchantOperations = defineOperations({
  createMerchant: {
    method: 'POST',
    path: '/v1/partner/merchants',
    summary: 'Create a sub-merchant',
    tag: 'Merchants',
    auth: 'partner',
    body: 'CreateMerchantRequest',
    responses: { 201: 'Merchant' },
    errors: ['external_tenant_id_taken'],
    idempotency: { endpoint: 'create-merchant', tenantScoped: true },
    rejectFeeFields: true,
  },
  listMerchants: {
    method: 'GET',
    path: '/v1/partner/merchants',
    summary: "List the partner's merchants, newest first",
    tag: 'Merchants',
    auth: 'partner',
    query: 'ListQuery',
    responses: { 200: 'MerchantList' },
    extension: true,
  },
  getMerchant: {
    method: 'GET',
    path: '/v1/partner/merchants/{id}',
    summary: 'Get one merchant',
    tag: 'Merchants',
    auth: 'partner',
    responses: { 200: 'Merchant' },
    errors: ['merchant_not_found'],
    extension: true,
  },
});
