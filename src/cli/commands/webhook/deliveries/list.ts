import { call, connect } from '../../../service.js';
import type { Handler } from '../../../spec.js';
import { deliveryTable, type DeliveryData } from '../../../views/delivery.js';

/** `svc webhook deliveries list`: the partner's deliveries (partner key), newest first; filters pass through. */
export const listDeliveriesCommand: Handler = async ({ options }, ctx) => {
  const { client } = await connect(ctx);
  const res = await call(
    ctx,
    'Listing deliveries',
    client.listDeliveries({
      limit: options.limit as number | undefined,
      startingAfter: options.startingAfter as string | undefined,
      status: options.status as string | undefined,
      eventType: options.eventType as string | undefined,
      invoiceId: options.invoice as string | undefined,
    }),
  );
  return { data: res.data, human: (c) => deliveryTable(c, res.data as { data: DeliveryData[]; hasMore: boolean }) };
};
