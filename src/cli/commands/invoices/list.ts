import { call, connect, readerFor } from '../../service.js';
import type { Handler } from '../../spec.js';
import { invoiceTable } from '../../views/invoice.js';

export const listInvoicesCommand: Handler = async ({ options }, ctx) => {
  const { client, target } = await connect(ctx);
  const variant = options.merchant ? 'partner' : readerFor(target);
  const res = await call(
    ctx,
    'Listing invoices',
    client.listInvoices(variant, {
      limit: options.limit as number | undefined,
      startingAfter: options.startingAfter as string | undefined,
      status: options.status as string | undefined,
      ...(variant === 'partner' ? { merchantId: options.merchant as string | undefined } : {}),
    }),
  );
  return { data: res.data, human: (c) => invoiceTable(c, res.data) };
};
