import { call, connect, readerFor } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { expireInvoiceSpec } from './index.js';
import { invoiceView } from '../../views/invoice.js';

/** `svc invoices expire <invoiceId>`: expires it now (test keys); the service answers `{"invoice": …}`. */
export const expireInvoiceCommand: Handler<typeof expireInvoiceSpec> = async ({ args }, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await call(ctx, 'Expiring invoice', client.expireTestInvoice({ params: { id: args.invoiceId }, keyKind: readerFor(target) }));
  return { data: res.data, human: (c) => invoiceView(c, res.data.invoice) };
};
