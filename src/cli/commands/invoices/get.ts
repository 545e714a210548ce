import { ApiRefusedError } from '../../../client/errors.js';
import type { ThrowingClient } from '../../../client/throwing.js';
import { getInvoiceAs } from '../../invoice-calls.js';
import { call, connect, readerFor } from '../../service.js';
import type { Handler } from '../../spec.js';
import { type InvoiceHistory, invoiceView } from '../../views/invoice.js';
import type { getInvoiceSpec } from './index.js';

/**
 * `svc invoices get`: the invoice as the API answers it, plus, from the emulator's control plane, its
 * payments (their ids are what `svc invoices confirm` takes) and its events in order. `--json` puts
 * those under `_emulator`, so the top level stays the API's answer, the same against a real service.
 */
export const getInvoiceCommand: Handler<typeof getInvoiceSpec> = async ({ args }, ctx) => {
  const { client, target } = await connect(ctx);
  const res = await call(ctx, 'Fetching invoice', getInvoiceAs(client, readerFor(target), args.invoiceId));
  const history = await emulatorHistory(client, res.data.id);
  return { data: history ? { ...res.data, _emulator: history } : res.data, human: (c) => invoiceView(c, res.data, history) };
};

/** Null where there is no control plane to ask: a real deployment (404), or one not exposed (403). */
async function emulatorHistory(client: ThrowingClient, id: string): Promise<InvoiceHistory | null> {
  try {
    const [payments, events] = await Promise.all([client.listInvoicePayments({ params: { id } }), client.listInvoiceEvents({ params: { id } })]);
    return { payments: payments.data.data, events: events.data.data };
  } catch (error) {
    if (error instanceof ApiRefusedError) return null;
    throw error;
  }
}
