import { call, connect } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { listMerchantsSpec } from './index.js';
import { merchantTable } from '../../views/merchant.js';

/** `svc merchants list` (partner key), newest first, one page at a time. */
export const listMerchantsCommand: Handler<typeof listMerchantsSpec> = async ({ options }, ctx) => {
  const { client } = await connect(ctx);
  const res = await call(ctx, 'Listing merchants', client.listMerchants({ query: { limit: options.limit, startingAfter: options.startingAfter } }));
  return { data: res.data, human: (c) => merchantTable(c, res.data) };
};
