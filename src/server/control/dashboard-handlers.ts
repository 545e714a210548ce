import type { ServerResponse } from 'node:http';
import { presentPayment, presentUncreditedTransfer } from '../presenters.js';
import { ApiError } from '../api-error.js';
import { isUuid } from '../../domain/ids.js';
import { isWebhookEvent } from '../../webhooks/event-guard.js';
import { sseFrame } from '../../webhooks/sse-frame.js';
import type { Handlers } from '../handler.js';

/** The dashboard's reads beyond the API (CONTRACT §10), loopback-only like the control plane. */
export const dashboardHandlers = {
  listInvoiceEvents: async (input, deps) => {
    const id = input.params.id;
    if (!isUuid(id) || !(await deps.db.invoices.findInvoice(id))) throw new ApiError(404, 'invoice_not_found', `No invoice ${id}.`);
    const data = (await deps.db.events.eventsOfInvoice(id)).map((e) => {
      const event: unknown = JSON.parse(e.payload);
      if (!isWebhookEvent(event)) throw new Error(`svc: stored event ${e.id} is not an envelope svc wrote`);
      return event;
    });
    return { status: 200, body: { data } };
  },
  listInvoicePayments: async (input, deps) => {
    const id = input.params.id;
    if (!isUuid(id) || !(await deps.db.invoices.findInvoice(id))) throw new ApiError(404, 'invoice_not_found', `No invoice ${id}.`);
    const payments = (await deps.db.payments.paymentsOf(id)).map((row) => ({ ...presentPayment(row), credited: true }));
    // The local chains (CONTRACT §14): the transfers that credit nothing, among the payments by time.
    const uncredited = (await deps.db.chains.uncreditedTransfersOf(id)).map(presentUncreditedTransfer);
    const data = uncredited.length ? [...payments, ...uncredited].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt)) : payments;
    return { status: 200, body: { data } };
  },
  streamChanges: (_input, deps) => ({
    status: 200,
    stream: (res: ServerResponse) => {
      const writer = deps.runtime.streams.changes.attach(res);
      writer.send(sseFrame('streamChanges', 'ready', {}));
      writer.heartbeat(15_000);
    },
  }),
} satisfies Handlers<'listInvoiceEvents' | 'listInvoicePayments' | 'streamChanges'>;
