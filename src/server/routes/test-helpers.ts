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
  createTestPayment: (input, deps) => {
    const result = addPayment(deps, invoiceFor(deps, input.principal, input.params.id), input.body);
    return { status: 201, body: { payment: presentPayment(result.payment), invoice: invoiceFrom(result.invoice, input.principal, deps) } };
  },
  confirmTestPayment: (input, deps) => {
    const result = confirmPendingPayment(deps, invoiceFor(deps, input.principal, input.params.id), input.params.paymentId);
    return { status: 200, body: { payment: presentPayment(result.payment), invoice: invoiceFrom(result.invoice, input.principal, deps) } };
  },
  expireTestInvoice: (input, deps) => {
    const invoice = expireInvoiceNow(deps, invoiceFor(deps, input.principal, input.params.id));
    return { status: 200, body: { invoice: invoiceFrom(invoice, input.principal, deps) } };
  },
} satisfies Handlers<'createTestPayment' | 'confirmTestPayment' | 'expireTestInvoice'>;
