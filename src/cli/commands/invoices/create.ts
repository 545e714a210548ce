import { isValidAmount } from '../../../domain/money.js';
import { required } from '../../prompt.js';
import { createInvoiceAs } from '../../invoice-calls.js';
import { call, connect, idempotencyKey, variantFor } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { createInvoiceSpec } from './index.js';
import { invoiceView } from '../../views/invoice.js';

/** `svc invoices create`: the partner variant with --merchant, the merchant variant without. */
export const createInvoiceCommand: Handler<typeof createInvoiceSpec> = async ({ options }, ctx) => {
  const amount = await required(ctx, options.amount, {
    flag: '--amount',
    message: 'Amount (e.g. 25.00):',
    what: 'a decimal amount such as 25.00',
    validate: (v) => isValidAmount(v) || 'a positive decimal such as 25.00, at most 6 decimals',
  });
  const { client, target } = await connect(ctx);
  const variant = variantFor(ctx, target, options.merchant);
  const fields = {
    amount,
    ...(options.referenceId !== undefined ? { referenceId: options.referenceId } : {}),
    ...(options.networkId !== undefined ? { networkId: options.networkId } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
  };
  const res = await call(ctx, 'Creating invoice', createInvoiceAs(client, variant, fields, idempotencyKey(ctx, options.idempotencyKey)));
  return {
    data: res.data,
    human: (c) => invoiceView(c, res.data),
    notes: res.replayed ? ['(idempotent replay: this invoice already existed)'] : [],
  };
};
