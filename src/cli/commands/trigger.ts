import type { Style } from '../output/style.js';
import type { ThrowingClient } from '../../client/throwing.js';
import { createInvoiceAs } from '../invoice-calls.js';
import { addAmounts, fromBaseUnits, isValidAmount, scaleOf, toBaseUnits } from '../../domain/money.js';
import { UsageError } from '../../errors.js';
import { call, connect, idempotencyKey, variantFor } from '../service.js';
import type { Context } from '../context.js';
import type { Handler } from '../spec.js';
import type { triggerSpec } from './top.js';
import { esc } from '../output/escape.js';
import { statusColour } from '../output/human.js';
import type { InvoiceData } from '../views/invoice.js';
import { networkLabel } from '../views/payment.js';
import type { TRIGGER_EVENTS } from './top.js';

type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

/** One thing trigger did, as `--json` reports it. */
type Step =
  | { action: 'create'; invoiceId: string; merchantId: string | null; amount: string }
  | { action: 'pay'; paymentId: string; amount: string; token: string; networkId: number; confirmed: boolean }
  | { action: 'expire'; invoiceId: string };

type Plan = { kind: 'pay'; amount?: (invoiceAmount: string) => string; confirmed?: false } | { kind: 'expire' };

/** What drives a fresh invoice to each event (CONTRACT §4, §6). */
const PLANS: Record<TriggerEvent, Plan[]> = {
  'invoice.created': [],
  'invoice.payment_detected': [{ kind: 'pay', confirmed: false }],
  'invoice.partially_paid': [{ kind: 'pay', amount: half }],
  'invoice.paid': [{ kind: 'pay' }],
  'invoice.overpaid': [{ kind: 'pay', amount: (a) => addAmounts(a, '1') }],
  'invoice.expired': [{ kind: 'expire' }],
  'invoice.paid_late': [{ kind: 'expire' }, { kind: 'pay' }],
};

/**
 * `svc trigger <event>`: creates a fresh invoice (for --merchant with the partner key, else the
 * merchant key's own merchant, else the local emulator's default merchant; with --reference-id,
 * --network-id and --token as given) and drives it with the test helpers until it emits `event`. `--json` prints `{invoice, steps, event}`: the final invoice
 * as the service returned it, what was done, and the event.
 */
export const triggerCommand: Handler<typeof triggerSpec> = async ({ args, options }, ctx) => {
  const event = args.event;
  const amount = options.amount ?? '10.00';
  if (!isValidAmount(amount)) throw new UsageError(`--amount must be a positive decimal such as 10.00, not "${amount}"`, '--amount');
  if (event === 'invoice.partially_paid' && half(amount) === '0') {
    throw new UsageError(`--amount ${amount} is too small to pay in part`, '--amount');
  }
  const { client, target } = await connect(ctx);
  const as = variantFor(ctx, target, options.merchant);
  const variant = as.variant;

  // The route lock, given to the invoice and to every payment: a locked invoice is paid on its route.
  const route = {
    ...(options.networkId !== undefined ? { networkId: options.networkId } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
  };
  const fields = { amount, referenceId: options.referenceId ?? `svc trigger ${event}`, ...route };

  const steps: Step[] = [];
  const created = await call(ctx, 'Creating invoice', createInvoiceAs(client, as, fields, idempotencyKey(ctx, undefined)));
  let invoice = created.data;
  steps.push({ action: 'create', invoiceId: invoice.id, merchantId: 'merchantId' in invoice ? invoice.merchantId : null, amount: invoice.amount });
  for (const plan of PLANS[event]) {
    const { step, after } = await run(plan, invoice, { client, variant, ctx, route });
    steps.push(step);
    invoice = after;
  }
  return { data: { invoice, steps, event }, human: (c) => report(c, { invoice, steps, event }) };
};

type Route = { networkId?: number; token?: string };

async function run(plan: Plan, invoice: InvoiceData, env: { client: ThrowingClient; variant: 'partner' | 'merchant'; ctx: Context; route: Route }) {
  if (plan.kind === 'expire') {
    const step: Step = { action: 'expire', invoiceId: invoice.id };
    const res = await call(env.ctx, 'Expiring invoice', env.client.expireTestInvoice({ params: { id: invoice.id }, keyKind: env.variant }));
    return { step, after: res.data.invoice };
  }
  const body = { ...(plan.amount ? { amount: plan.amount(invoice.amount) } : {}), ...(plan.confirmed === false ? { confirmed: false } : {}), ...env.route };
  const res = await call(env.ctx, 'Paying invoice', env.client.createTestPayment({ params: { id: invoice.id }, body, keyKind: env.variant }));
  const { payment, invoice: after } = res.data;
  const step: Step = {
    action: 'pay',
    paymentId: payment.id,
    amount: payment.amount,
    token: payment.token,
    networkId: payment.networkId,
    confirmed: payment.confirmed,
  };
  return { step, after };
}

/** Half of an amount, exactly, written with at least the amount's fraction digits ("10.00" → "5.00"). */
function half(amount: string): string {
  const units = toBaseUnits(amount, 6) / 2n;
  const text = fromBaseUnits(units, 6);
  const missing = scaleOf(amount) - scaleOf(text);
  if (missing <= 0 || units === 0n) return text;
  return `${text}${scaleOf(text) === 0 ? '.' : ''}${'0'.repeat(missing)}`;
}

function report(c: Style, r: { invoice: InvoiceData; steps: Step[]; event: TriggerEvent }): string {
  // What the service answered is escaped (CONTRACT §8); the step lines carry no colour.
  const lines = r.steps
    .map((s) => {
      switch (s.action) {
        case 'create':
          return `created invoice ${s.invoiceId} for ${s.amount}${s.merchantId ? ` (merchant ${s.merchantId})` : ''}`;
        case 'expire':
          return `expired invoice ${s.invoiceId}`;
        case 'pay':
          return `paid ${s.amount} ${s.token} on ${networkLabel(r.invoice, s.networkId)}${s.confirmed ? '' : ', unconfirmed'} (payment ${s.paymentId})`;
        default:
          return '';
      }
    })
    .map((line) => esc(line));
  const inv = r.invoice;
  lines.push(`${c.green('→')} ${c.bold(r.event)}  status ${statusColour(c, inv.status)}, received ${esc(inv.amountReceived)} of ${esc(inv.amount)}`);
  return lines.join('\n');
}
