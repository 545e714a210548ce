import { listInvoicesAs } from '../../invoice-calls.js';
import { call, connect, readerFor } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { listInvoicesSpec } from './index.js';
import { invoiceTable } from '../../views/invoice.js';

export const listInvoicesCommand: Handler<typeof listInvoicesSpec> = async ({ options }, ctx) => {
  const { client, target } = await connect(ctx);
  const variant = options.merchant ? 'partner' : readerFor(target);
  const res = await call(
    ctx,
    'Listing invoices',
    listInvoicesAs(client, variant, {
      limit: options.limit,
      startingAfter: options.startingAfter,
      status: options.status,
      ...(variant === 'partner' ? { merchantId: options.merchant } : {}),
    }),
  );
  return { data: res.data, human: (c) => invoiceTable(c, res.data) };
};
