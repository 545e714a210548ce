import type { InvoiceRow } from '../../store/repos/invoices.js';
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
async function list<T>(variant: InvoiceVariant, principal: Principal, q: ListQuery, deps: AppDeps, present: (row: InvoiceRow) => T) {
  const merchantId = variant === 'merchant' ? principal.merchantId! : q.merchantId;
  if (variant === 'partner' && merchantId) await merchantForPartner(deps, principal, merchantId, 'merchantId');
  const after = await cursorOf(q.startingAfter, async (id) => {
    const inv = await deps.db.invoices.findInvoice(id);
    return inv && canSeeInvoice(principal, inv) ? inv : undefined;
  });
  const rows = await deps.db.invoices.listInvoices(
    { partnerId: principal.partnerId, environment: principal.environment, merchantId, status: q.status },
    { limit: q.limit, after },
  );
  return page(rows, q.limit, present);
}

export const invoiceHandlers = {
  // A create runs in the idempotent request's transaction (pipeline/handler.ts), which `deps.db`
  // joins: the merchant read and the writes are the create's, and nothing is read back.
  createPartnerInvoice: async (input, deps) => {
    const merchant = await merchantForPartner(deps, input.principal, input.body.merchantId, 'merchantId');
    const row = await deps.db.transaction((tx) => createInvoice(tx, deps, merchant, input.body));
    return { status: 201, json: presentInvoiceJson(row, 'partner', deps.baseUrl()) };
  },
  createInvoice: async (input, deps) => {
    const merchant = await merchantOfKey(deps, input.principal);
    const row = await deps.db.transaction((tx) => createInvoice(tx, deps, merchant, input.body));
    return { status: 201, json: presentInvoiceJson(row, 'merchant', deps.baseUrl()) };
  },
  listPartnerInvoices: async (input, deps) => ({
    status: 200,
    body: await list('partner', input.principal, input.query, deps, (r) => presentInvoice(r, 'partner', deps.baseUrl())),
  }),
  getPartnerInvoice: async (input, deps) => ({
    status: 200,
    json: presentInvoiceJson(await invoiceFor(deps, input.principal, input.params.id), 'partner', deps.baseUrl()),
  }),
  listInvoices: async (input, deps) => ({
    status: 200,
    body: await list('merchant', input.principal, input.query, deps, (r) => presentInvoice(r, 'merchant', deps.baseUrl())),
  }),
  getInvoice: async (input, deps) => ({
    status: 200,
    json: presentInvoiceJson(await invoiceFor(deps, input.principal, input.params.id), 'merchant', deps.baseUrl()),
  }),
} satisfies Handlers<'createPartnerInvoice' | 'createInvoice' | 'listPartnerInvoices' | 'getPartnerInvoice' | 'listInvoices' | 'getInvoice'>;
