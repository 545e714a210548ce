import { call, connect } from '../../../service.js';
import type { Handler } from '../../../spec.js';
import type { getDeliverySpec } from '../index.js';
import { deliveryView } from '../../../views/delivery.js';

/** `svc webhook deliveries get <id>`: the record, every attempt with its response body, and the payload. */
export const getDeliveryCommand: Handler<typeof getDeliverySpec> = async ({ args }, ctx) => {
  const { client } = await connect(ctx);
  const res = await call(ctx, 'Fetching delivery', client.getDelivery({ params: { id: args.id } }));
  return { data: res.data, human: (c) => deliveryView(c, res.data) };
};
