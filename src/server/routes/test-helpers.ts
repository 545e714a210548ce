import { invoiceFor } from '../actions/find-invoice.js';
import { addPayment, confirmPendingPayment, expireInvoiceNow } from '../actions/lifecycle.js';
import type { Handlers } from '../handler.js';
import { presentInvoice, presentPayment } from '../presenters.js';
import type { AppDeps, Principal } from '../route.js';
import type { InvoiceRow } from '../../store/repos/invoices.js';

/** Partner keys see the partner variant of the invoice, merchant keys the merchant variant. */
const invoiceFrom = (row: InvoiceRow, p: Principal, deps: AppDeps) => presentInvoice(row, p.kind === 'partner' ? 'partner' : 'merchant', deps.baseUrl());

/** CONTRACT §6: test keys only; partner keys on their merchants' invoices, merchant keys on their own. */
export const testHelperHandlers = {
  createTestPayment: async (input, deps) => {
    const result = await addPayment(deps, await invoiceFor(deps, input.principal, input.params.id), input.body);
    return { status: 201, body: { payment: presentPayment(result.payment), invoice: invoiceFrom(result.invoice, input.principal, deps) } };
  },
  confirmTestPayment: async (input, deps) => {
    const result = await confirmPendingPayment(deps, await invoiceFor(deps, input.principal, input.params.id), input.params.paymentId);
    return { status: 200, body: { payment: presentPayment(result.payment), invoice: invoiceFrom(result.invoice, input.principal, deps) } };
  },
  expireTestInvoice: async (input, deps) => {
    const invoice = await expireInvoiceNow(deps, await invoiceFor(deps, input.principal, input.params.id));
    return { status: 200, body: { invoice: invoiceFrom(invoice, input.principal, deps) } };
  },
} satisfies Handlers<'createTestPayment' | 'confirmTestPayment' | 'expireTestInvoice'>;
