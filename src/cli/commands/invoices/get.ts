import { call, connect, readerFor } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { getInvoiceSpec } from './index.js';
import { invoiceView } from '../../views/invoice.js';

export const getInvoiceCommand: Handler<typeof getInvoiceSpec> = async ({ args }, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await call(ctx, 'Fetching invoice', client.getInvoice(readerFor(target), args.invoiceId));
  return { data: res.data, human: (c) => invoiceView(c, res.data) };
};
