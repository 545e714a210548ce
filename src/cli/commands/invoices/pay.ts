import { isValidAmount } from '../../../domain/money.js';
import { UsageError } from '../../../errors.js';
import { call, connect, readerFor } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { payInvoiceSpec } from './index.js';
import { paymentView } from '../../views/payment.js';

/**
 * `svc invoices pay <invoiceId>`: a simulated payment (test keys). The service picks the defaults:
 * the remaining amount, on the first route the invoice allows, confirmed.
 */
export const payInvoiceCommand: Handler<typeof payInvoiceSpec> = async ({ args, options }, ctx) => {
  const amount = options.amount;
  if (amount !== undefined && !isValidAmount(amount)) {
    throw new UsageError(`--amount must be a positive decimal such as 25.00 (at most 6 decimals), not "${amount}"`, '--amount');
  }
  const body = {
    ...(amount !== undefined ? { amount } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.networkId !== undefined ? { networkId: options.networkId } : {}),
    ...(options.unconfirmed ? { confirmed: false } : {}),
    ...(options.txHash !== undefined ? { txHash: options.txHash } : {}),
  };
  const { client, target } = await connect(ctx);
  const res = await call(ctx, 'Paying invoice', client.createTestPayment({ params: { id: args.invoiceId }, body, keyKind: readerFor(target) }));
  return { data: res.data, human: (c) => paymentView(c, res.data) };
};
