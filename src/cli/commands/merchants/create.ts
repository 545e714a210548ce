import { required } from '../../prompt.js';
import { call, connect, idempotencyKey } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { createMerchantSpec } from './index.js';
import { merchantView } from '../../views/merchant.js';

/** `svc merchants create`: asks for what is missing on a terminal, a usage error otherwise. */
export const createMerchantCommand: Handler<typeof createMerchantSpec> = async ({ options }, ctx) => {
  const externalTenantId = await required(ctx, options.externalTenantId, {
    flag: '--external-tenant-id',
    message: 'External tenant id:',
    what: 'your own identifier for the tenant',
  });
  const name = await required(ctx, options.name, { flag: '--name', message: 'Merchant name:', what: 'the merchant name' });
  const email = await required(ctx, options.email, {
    flag: '--email',
    message: 'Contact e-mail:',
    what: 'a contact e-mail address',
    validate: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) || 'an e-mail address',
  });
  const { client } = await connect(ctx);
  const res = await call(
    ctx,
    'Creating merchant',
    client.createMerchant({ body: { externalTenantId, name, email }, idempotencyKey: idempotencyKey(ctx, options.idempotencyKey) }),
  );
  return {
    data: res.data,
    human: (c) => merchantView(c, res.data),
    notes: res.replayed ? ['(idempotent replay: this merchant already existed)'] : [],
  };
};
