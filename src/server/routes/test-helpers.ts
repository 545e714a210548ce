import { addPayment, confirmPendingPayment, expireInvoiceNow } from '../actions/lifecycle.js';
import { invoiceFor } from '../actions/find-invoice.js';
import { presentInvoice, presentPayment } from '../presenters.js';
import type { AuthedInput, Principal, RouteDef } from '../route.js';
import { expireResult, paymentBody, paymentResult, type PaymentBody } from '../validation/lifecycle.js';

/** Partner keys see the partner variant of the invoice, merchant keys the merchant variant. */
const variantOf = (p: Principal) => (p.kind === 'partner' ? 'partner' : 'merchant');

/**
 * An optional Idempotency-Key (extension): with one, repeating the same helper call on the same path
 * replays the first answer instead of paying (or confirming, or expiring) again, so that a fixtures
 * file re-run in CI changes nothing. Without one, each call acts, as CONTRACT §6 describes.
 */
const REPEATABLE = { endpoint: 'test-helper', optional: true, perPath: true };

/** CONTRACT §6: test keys only; partner keys on their merchants' invoices, merchant keys on their own. */
export const testHelperRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/test_helpers/invoices/:invoiceId/payments',
    auth: 'either',
    testOnly: true,
    idempotent: REPEATABLE,
    body: paymentBody,
    doc: {
      summary: 'Simulate a payment (default: the remaining amount on the first allowed route, confirmed)',
      tag: 'Test helpers',
      extension: true,
      response: { status: 201, schema: paymentResult },
      errors: ['test_mode_only', 'invoice_not_found', 'route_not_available'],
    },
    handle: (input: AuthedInput<PaymentBody>, deps) => {
      const invoice = invoiceFor(deps, input.principal, input.params.invoiceId!);
      const result = addPayment(deps, invoice, input.body);
      return {
        status: 201,
        body: { payment: presentPayment(result.payment), invoice: presentInvoice(result.invoice, variantOf(input.principal), deps.baseUrl()) },
      };
    },
  },
  {
    method: 'POST',
    path: '/v1/test_helpers/invoices/:invoiceId/payments/:paymentId/confirm',
    auth: 'either',
    testOnly: true,
    idempotent: REPEATABLE,
    doc: {
      summary: 'Confirm a payment that was created unconfirmed',
      tag: 'Test helpers',
      extension: true,
      response: { status: 200, schema: paymentResult },
      errors: ['test_mode_only', 'invoice_not_found', 'payment_not_found', 'payment_already_confirmed'],
    },
    handle: (input: AuthedInput<undefined>, deps) => {
      const invoice = invoiceFor(deps, input.principal, input.params.invoiceId!);
      const result = confirmPendingPayment(deps, invoice, input.params.paymentId!);
      return {
        status: 200,
        body: { payment: presentPayment(result.payment), invoice: presentInvoice(result.invoice, variantOf(input.principal), deps.baseUrl()) },
      };
    },
  },
  {
    method: 'POST',
    path: '/v1/test_helpers/invoices/:invoiceId/expire',
    auth: 'either',
    testOnly: true,
    idempotent: REPEATABLE,
    doc: {
      summary: 'Expire an invoice now',
      tag: 'Test helpers',
      extension: true,
      response: { status: 200, schema: expireResult },
      errors: ['test_mode_only', 'invoice_not_found', 'invoice_not_expirable'],
    },
    handle: (input: AuthedInput<undefined>, deps) => {
      const invoice = expireInvoiceNow(deps, invoiceFor(deps, input.principal, input.params.invoiceId!));
      return { status: 200, body: { invoice: presentInvoice(invoice, variantOf(input.principal), deps.baseUrl()) } };
    },
  },
];
