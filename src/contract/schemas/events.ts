import * as z from 'zod';
import { ENVIRONMENTS, EVENT_CATALOG, type InvoiceEventType, type InvoiceStatus } from '../enums.js';
import type { WebhookEvent } from '../webhook-event.js';

/**
 * The webhook event envelope of each event type (interface document §2.4, CONTRACT §4): what a
 * receiver gets, signed. Each type fixes the invoice status it reports (CONTRACT §4's table) and
 * whether a payment caused it. Read by the OpenAPI document's `webhooks`, the types, and the checker.
 */

type TokenRule = (typeof EVENT_CATALOG)[InvoiceEventType]['token'];
type TokenSchema<K extends TokenRule> = K extends 'never' ? z.ZodNull : K extends 'always' ? z.ZodString : z.ZodNullable<z.ZodString>;

const TOKEN_DESCRIPTION = 'Symbol of the payment that caused the event; null when no payment did.';

function tokenSchema<K extends TokenRule>(rule: K): TokenSchema<K> {
  const schema = rule === 'never' ? z.null() : rule === 'always' ? z.string() : z.string().nullable();
  // The three branches are the three members of TokenSchema; TypeScript cannot follow `rule` into them.
  return schema.meta({ description: TOKEN_DESCRIPTION }) as TokenSchema<K>;
}

/** `invoice.paid` → `InvoicePaidEvent`. */
export const eventSchemaName = (type: InvoiceEventType) =>
  `Invoice${type
    .slice('invoice.'.length)
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}Event`;

// Status and token rule are parameters of their own, read from EVENT_CATALOG at each call: inside a
// generic function an indexed access to the catalog widens to every status, and the type is lost.
function envelope<T extends InvoiceEventType, S extends InvoiceStatus, K extends TokenRule>(type: T, status: S, token: K) {
  return z
    .object({
      id: z.string().meta({ description: '`<invoiceId>-<sequence>`: the key to process idempotently on.' }),
      type: z.literal(type),
      createdAt: z.iso.datetime().meta({ description: 'Emulator time.' }),
      environment: z.enum(ENVIRONMENTS),
      partnerId: z.guid(),
      data: z.object({
        invoiceId: z.guid(),
        merchantId: z.guid(),
        externalTenantId: z.string(),
        status: z.literal(status),
        amount: z.string(),
        amountReceived: z.string(),
        token: tokenSchema(token),
        sequence: z.number().int().min(1).meta({ description: 'Starts at 1 per invoice and grows by one per event, without gaps.' }),
      }),
    })
    .meta({ id: eventSchemaName(type), description: EVENT_CATALOG[type].when });
}

export const EVENT_SCHEMAS = {
  'invoice.created': envelope('invoice.created', EVENT_CATALOG['invoice.created'].status, EVENT_CATALOG['invoice.created'].token),
  'invoice.payment_detected': envelope(
    'invoice.payment_detected',
    EVENT_CATALOG['invoice.payment_detected'].status,
    EVENT_CATALOG['invoice.payment_detected'].token,
  ),
  'invoice.partially_paid': envelope('invoice.partially_paid', EVENT_CATALOG['invoice.partially_paid'].status, EVENT_CATALOG['invoice.partially_paid'].token),
  'invoice.paid': envelope('invoice.paid', EVENT_CATALOG['invoice.paid'].status, EVENT_CATALOG['invoice.paid'].token),
  'invoice.overpaid': envelope('invoice.overpaid', EVENT_CATALOG['invoice.overpaid'].status, EVENT_CATALOG['invoice.overpaid'].token),
  'invoice.expired': envelope('invoice.expired', EVENT_CATALOG['invoice.expired'].status, EVENT_CATALOG['invoice.expired'].token),
  'invoice.paid_late': envelope('invoice.paid_late', EVENT_CATALOG['invoice.paid_late'].status, EVENT_CATALOG['invoice.paid_late'].token),
} as const satisfies Record<InvoiceEventType, z.ZodObject>;

export const webhookEvent = z
  .discriminatedUnion('type', [
    EVENT_SCHEMAS['invoice.created'],
    EVENT_SCHEMAS['invoice.payment_detected'],
    EVENT_SCHEMAS['invoice.partially_paid'],
    EVENT_SCHEMAS['invoice.paid'],
    EVENT_SCHEMAS['invoice.overpaid'],
    EVENT_SCHEMAS['invoice.expired'],
    EVENT_SCHEMAS['invoice.paid_late'],
  ])
  .meta({ id: 'WebhookEvent', description: 'Any event envelope, by `type`.' });

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The schema produces exactly the public type (webhook-event.ts): a field added to one only does not compile. */
export type SchemaMatchesWebhookEvent = Equal<z.output<typeof webhookEvent>, WebhookEvent> extends true ? true : never;
const matches: SchemaMatchesWebhookEvent = true;
void matches;

export type { WebhookEvent } from '../webhook-event.js';
