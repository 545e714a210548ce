import { call, connect } from '../../../service.js';
import type { Handler } from '../../../spec.js';
import type { listDeliveriesSpec } from '../index.js';
import { deliveryTable } from '../../../views/delivery.js';

/** `svc webhook deliveries list`: the partner's deliveries (partner key), newest first; filters pass through. */
export const listDeliveriesCommand: Handler<typeof listDeliveriesSpec> = async ({ options }, ctx) => {
  const { client } = await connect(ctx);
  const res = await call(
    ctx,
    'Listing deliveries',
    client.listDeliveries({
      query: {
        limit: options.limit,
        startingAfter: options.startingAfter,
        status: options.status,
        eventType: options.eventType,
        invoiceId: options.invoice,
      },
    }),
  );
  return { data: res.data, human: (c) => deliveryTable(c, res.data) };
};
