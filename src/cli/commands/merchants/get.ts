import { call, connect } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { getMerchantSpec } from './index.js';
import { merchantView } from '../../views/merchant.js';

/** `svc merchants get <merchantId>` (partner key). */
export const getMerchantCommand: Handler<typeof getMerchantSpec> = async ({ args }, ctx) => {
  const { client } = await connect(ctx);
  const res = await call(ctx, 'Fetching merchant', client.getMerchant({ params: { id: args.merchantId } }));
  return { data: res.data, human: (c) => merchantView(c, res.data) };
};
