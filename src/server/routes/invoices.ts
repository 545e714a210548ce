import { findInvoice, type InvoiceRow, listInvoices } from '../../store/repos/invoices.js';
import { createInvoice } from '../actions/create-invoice.js';
import { merchantForPartner } from '../actions/create-merchant.js';
import { canSeeInvoice, invoiceFor, merchantOfKey } from '../actions/find-invoice.js';
import type { Handlers } from '../handler.js';
import { presentInvoice, presentInvoiceJson, type InvoiceVariant } from '../presenters.js';
import type { AppDeps, Principal } from '../route.js';
import { cursorOf, page } from './pagination.js';

interface ListQuery {
  limit: number;
  startingAfter?: string | undefined;
  status?: string | undefined;
  merchantId?: string | undefined;
}

/** One page of invoices; `present` is the variant's presenter, so each list is typed as its own variant. */
function list<T>(variant: InvoiceVariant, principal: Principal, q: ListQuery, deps: AppDeps, present: (row: InvoiceRow) => T) {
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
  return page(rows, q.limit, present);
}

export const invoiceHandlers = {
  createPartnerInvoice: (input, deps) => {
    const merchant = merchantForPartner(deps, input.principal, input.body.merchantId, 'merchantId');
    return { status: 201, json: presentInvoiceJson(createInvoice(deps, merchant, input.body), 'partner', deps.baseUrl()) };
  },
  createInvoice: (input, deps) => {
    const merchant = merchantOfKey(deps, input.principal);
    return { status: 201, json: presentInvoiceJson(createInvoice(deps, merchant, input.body), 'merchant', deps.baseUrl()) };
  },
  listPartnerInvoices: (input, deps) => ({
    status: 200,
    body: list('partner', input.principal, input.query, deps, (r) => presentInvoice(r, 'partner', deps.baseUrl())),
  }),
  getPartnerInvoice: (input, deps) => ({
    status: 200,
    json: presentInvoiceJson(invoiceFor(deps, input.principal, input.params.id), 'partner', deps.baseUrl()),
  }),
  listInvoices: (input, deps) => ({
    status: 200,
    body: list('merchant', input.principal, input.query, deps, (r) => presentInvoice(r, 'merchant', deps.baseUrl())),
  }),
  getInvoice: (input, deps) => ({ status: 200, json: presentInvoiceJson(invoiceFor(deps, input.principal, input.params.id), 'merchant', deps.baseUrl()) }),
} satisfies Handlers<'createPartnerInvoice' | 'createInvoice' | 'listPartnerInvoices' | 'getPartnerInvoice' | 'listInvoices' | 'getInvoice'>;
