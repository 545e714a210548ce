import { call, connect, readerFor } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { confirmPaymentSpec } from './index.js';
import { paymentView } from '../../views/payment.js';

/** `svc invoices confirm <invoiceId> <paymentId>`: confirms a payment made with --unconfirmed (test keys). */
export const confirmPaymentCommand: Handler<typeof confirmPaymentSpec> = async ({ args }, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await call(
    ctx,
    'Confirming payment',
    client.confirmTestPayment({ params: { id: args.invoiceId, paymentId: args.paymentId }, keyKind: readerFor(target) }),
  );
  return { data: res.data, human: (c) => paymentView(c, res.data) };
};
