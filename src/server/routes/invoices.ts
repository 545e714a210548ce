import { findInvoice, listInvoices } from '../../store/repos/invoices.js';
import { createInvoice } from '../actions/create-invoice.js';
import { merchantForPartner } from '../actions/create-merchant.js';
import { canSeeInvoice, invoiceFor, merchantOfKey } from '../actions/find-invoice.js';
import { presentInvoice, presentInvoiceJson, type InvoiceVariant } from '../presenters.js';
import type { AppDeps, AuthedInput, RouteDef } from '../route.js';
import {
  createMerchantInvoiceBody,
  createPartnerInvoiceBody,
  invoiceListQuery,
  merchantInvoiceList,
  merchantInvoiceSchema,
  partnerInvoiceList,
  partnerInvoiceListQuery,
  partnerInvoiceSchema,
  type CreateMerchantInvoiceBody,
  type CreatePartnerInvoiceBody,
} from '../validation/invoices.js';
import { parseWith } from '../validation/parse.js';
import { cursorOf, page } from './pagination.js';

const CREATE_ERRORS = ['route_not_available', 'idempotency_key_required', 'idempotency_key_invalid', 'idempotency_key_reused', 'idempotency_key_in_progress'];

function listFor(variant: InvoiceVariant) {
  return (input: AuthedInput<undefined>, deps: AppDeps) => {
    const { principal } = input;
    const q: { limit: number; startingAfter?: string | undefined; status?: string | undefined; merchantId?: string | undefined } = parseWith(
      variant === 'partner' ? partnerInvoiceListQuery : invoiceListQuery,
      Object.fromEntries(input.query),
    );
    const merchantId = variant === 'merchant' ? principal.merchantId! : q.merchantId;
    if (variant === 'partner' && merchantId) merchantForPartner(deps, principal, merchantId, 'merchantId');
    const beforeSeq = cursorOf(q.startingAfter, (id) => {
      const inv = findInvoice(deps.store, id);
      return inv && canSeeInvoice(principal, inv) ? inv : undefined;
    });
    const rows = listInvoices(
      deps.store,
      { partnerId: principal.partnerId, environment: principal.environment, merchantId, status: q.status },
      { limit: q.limit, beforeSeq },
    );
    return { status: 200, body: page(rows, q.limit, (r) => presentInvoice(r, variant, deps.baseUrl())) };
  };
}

export const invoiceRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/partner/invoices',
    auth: 'partner',
    body: createPartnerInvoiceBody,
    idempotent: { endpoint: 'create-partner-invoice' },
    doc: {
      summary: 'Create an invoice for a sub-merchant',
      tag: 'Invoices',
      response: { status: 201, schema: partnerInvoiceSchema },
      errors: ['merchant_not_found', ...CREATE_ERRORS],
    },
    handle: (input: AuthedInput<CreatePartnerInvoiceBody>, deps) => {
      const merchant = merchantForPartner(deps, input.principal, input.body.merchantId, 'merchantId');
      return { status: 201, json: presentInvoiceJson(createInvoice(deps, merchant, input.body), 'partner', deps.baseUrl()) };
    },
  },
  {
    method: 'POST',
    path: '/v1/invoices',
    auth: 'merchant',
    body: createMerchantInvoiceBody,
    idempotent: { endpoint: 'create-merchant-invoice' },
    doc: { summary: 'Create an invoice as a merchant', tag: 'Invoices', response: { status: 201, schema: merchantInvoiceSchema }, errors: CREATE_ERRORS },
    handle: (input: AuthedInput<CreateMerchantInvoiceBody>, deps) => {
      const merchant = merchantOfKey(deps, input.principal);
      return { status: 201, json: presentInvoiceJson(createInvoice(deps, merchant, input.body), 'merchant', deps.baseUrl()) };
    },
  },
  {
    method: 'GET',
    path: '/v1/partner/invoices',
    auth: 'partner',
    doc: {
      summary: "List the partner's invoices, newest first",
      tag: 'Invoices',
      extension: true,
      query: partnerInvoiceListQuery,
      response: { status: 200, schema: partnerInvoiceList },
    },
    handle: listFor('partner'),
  },
  {
    method: 'GET',
    path: '/v1/partner/invoices/:invoiceId',
    auth: 'partner',
    doc: {
      summary: 'Get one invoice of a sub-merchant',
      tag: 'Invoices',
      extension: true,
      response: { status: 200, schema: partnerInvoiceSchema },
      errors: ['invoice_not_found'],
    },
    handle: (input: AuthedInput<undefined>, deps) => ({
      status: 200,
      json: presentInvoiceJson(invoiceFor(deps, input.principal, input.params.invoiceId!), 'partner', deps.baseUrl()),
    }),
  },
  {
    method: 'GET',
    path: '/v1/invoices',
    auth: 'merchant',
    doc: {
      summary: "List the merchant's invoices, newest first",
      tag: 'Invoices',
      extension: true,
      query: invoiceListQuery,
      response: { status: 200, schema: merchantInvoiceList },
    },
    handle: listFor('merchant'),
  },
  {
    method: 'GET',
    path: '/v1/invoices/:invoiceId',
    auth: 'merchant',
    doc: {
      summary: 'Get one of the merchant’s invoices',
      tag: 'Invoices',
      extension: true,
      response: { status: 200, schema: merchantInvoiceSchema },
      errors: ['invoice_not_found'],
    },
    handle: (input: AuthedInput<undefined>, deps) => ({
      status: 200,
      json: presentInvoiceJson(invoiceFor(deps, input.principal, input.params.invoiceId!), 'merchant', deps.baseUrl()),
    }),
  },
];
