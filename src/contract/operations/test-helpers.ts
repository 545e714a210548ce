import { defineOperations } from '../operation.js';

/**
 * An optional Idempotency-Key (extension): with one, repeating the same helper call on the same path
 * replays the first answer instead of paying (or confirming, or expiring) again, so that a fixtures
 * file re-run in CI changes nothing. Without one, each call acts, as CONTRACT §6 describes.
 */
const REPEATABLE = { endpoint: 'test-helper', optional: true, perPath: true } as const;

/** CONTRACT §6: test keys only; partner keys on their merchants' invoices, merchant keys on their own. */
export const testHelperOperations = defineOperations({
  createTestPayment: {
    method: 'POST',
    path: '/v1/test_helpers/invoices/{id}/payments',
    summary: 'Simulate a payment (default: the remaining amount on the first allowed route, confirmed)',
    tag: 'Test helpers',
    auth: 'either',
    testOnly: true,
    body: 'CreatePaymentRequest',
    responses: { 201: 'PaymentResult' },
    errors: ['invoice_not_found', 'route_not_available'],
    idempotency: REPEATABLE,
    extension: true,
  },
  confirmTestPayment: {
    method: 'POST',
    path: '/v1/test_helpers/invoices/{id}/payments/{paymentId}/confirm',
    summary: 'Confirm a payment that was created unconfirmed',
    tag: 'Test helpers',
    auth: 'either',
    testOnly: true,
    responses: { 200: 'PaymentResult' },
    errors: ['invoice_not_found', 'payment_not_found', 'payment_already_confirmed'],
    idempotency: REPEATABLE,
    extension: true,
  },
  expireTestInvoice: {
    method: 'POST',
    path: '/v1/test_helpers/invoices/{id}/expire',
    summary: 'Expire an invoice now',
    tag: 'Test helpers',
    auth: 'either',
    testOnly: true,
    responses: { 200: 'ExpireResult' },
    errors: ['invoice_not_found', 'invoice_not_expirable'],
    idempotency: REPEATABLE,
    extension: true,
  },
});
