import { defineOperations } from '../operation.js';

const control = { tag: 'Emulator control plane', control: true, extension: true, auth: 'none' } as const;

/** What the dashboard (CONTRACT §10) and `svc invoices get` read beyond the API: an invoice's events and payments, and a change feed. */
export const dashboardOperations = defineOperations({
  listInvoiceEvents: {
    ...control,
    method: 'GET',
    path: '/__emulator/invoices/{id}/events',
    summary: "An invoice's events in order, each the exact envelope delivered",
    responses: { 200: 'InvoiceEvents' },
    errors: ['invoice_not_found'],
  },
  listInvoicePayments: {
    ...control,
    method: 'GET',
    path: '/__emulator/invoices/{id}/payments',
    summary: "An invoice's payments in the order they were seen, confirmed or not (their ids are what confirm takes)",
    responses: { 200: 'InvoicePayments' },
    errors: ['invoice_not_found'],
  },
  streamChanges: {
    ...control,
    method: 'GET',
    path: '/__emulator/changes',
    summary: 'A server-sent event each time something changes (a write, a delivery attempt, the clock): the dashboard refreshes on it',
    responses: { 200: { stream: true, description: 'Server-sent events: `event: ready` once, then `event: change` with `{kind}` (`request`, `delivery`).' } },
  },
});
