import { call, connect } from '../../service.js';
import type { Handler } from '../../spec.js';
import { merchantTable } from '../../views/merchant.js';

/** `svc merchants list` (partner key), newest first, one page at a time. */
export const listMerchantsCommand: Handler = async ({ options }, ctx) => {
  const { client } = await connect(ctx);
  const res = await call(
    ctx,
    'Listing merchants',
    client.listMerchants({ limit: options.limit as number | undefined, startingAfter: options.startingAfter as string | undefined }),
  );
  return { data: res.data, human: (c) => merchantTable(c, res.data) };
};
