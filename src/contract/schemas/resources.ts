import * as z from 'zod';
import { wireAmountPattern } from '../../domain/money.js';
import {
  ATTEMPT_TRIGGERS,
  CHAIN_FAMILIES,
  DELIVERY_STATUSES,
  DELIVERY_TARGETS,
  ENVIRONMENTS,
  INTEGRATION_STATUSES,
  INVOICE_EVENT_TYPES,
  INVOICE_STATUSES,
} from '../enums.js';

/**
 * The API's resources as the emulator answers them (interface document §2, CONTRACT §3, §5, §6).
 * Only the OpenAPI document, the response checker and the types read these: the server imports
 * none of it at run time, so none of it is built on start-up. `.meta({ id })` names a component.
 */

const environment = z.enum(ENVIRONMENTS);
const timestamp = z.iso.datetime();
/** amountReceived: a sum of payments, as many fraction digits as needed (never an exponent). */
const decimal = z.string().meta({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$' });

export const merchant = z
  .object({
    merchantId: z.guid(),
    organizationId: z.string(),
    partnerId: z.guid(),
    externalTenantId: z.string(),
    name: z.string(),
    email: z.string(),
    integrationStatus: z.enum(INTEGRATION_STATUSES).meta({ description: 'PENDING until onboarding completes at bindUrl, then ACTIVE.' }),
    dashboardAccess: z.boolean(),
    autoPayoutEnabled: z.boolean(),
    bindUrl: z.url(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Merchant' });

const token = z.object({ symbol: z.string(), contractAddress: z.string(), decimals: z.number().int() }).meta({ id: 'Token' });
const address = z
  .object({
    chainId: z.guid(),
    chainName: z.string(),
    family: z.enum(CHAIN_FAMILIES),
    networkId: z.number().int(),
    depositAddress: z.string(),
    tokens: z.array(token),
  })
  .meta({ id: 'Address' });

const invoiceHead = {
  id: z.guid(),
  status: z.enum(INVOICE_STATUSES),
  environment,
  amount: z.string().meta({ pattern: wireAmountPattern().source, description: 'As sent at creation.' }),
  amountReceived: decimal.meta({ description: 'Sum of confirmed payments, with as many fraction digits as `amount` (more only when a payment needs them).' }),
  referenceId: z.string().nullable(),
  checkoutUrl: z.url(),
  expiresAt: timestamp,
};
const addresses = z.array(address).meta({ description: 'Deposit addresses, one per chain enabled for the merchant (or only the locked one).' });

/** The merchant variant: no merchantId (interface document §2.2). */
export const invoice = z.object({ ...invoiceHead, addresses }).meta({ id: 'Invoice' });
// The partner variant's merchantId follows id, as the presenter writes it.
const { id, ...afterId } = invoiceHead;
export const partnerInvoice = z.object({ id, merchantId: z.guid(), ...afterId, addresses }).meta({ id: 'PartnerInvoice' });

export const webhookConfiguration = z
  .object({
    id: z.guid(),
    environment,
    url: z.url(),
    customHeaders: z.record(z.string(), z.string()).meta({ description: 'Extension: headers added to every delivery.' }),
    enabled: z.boolean(),
    secretConfigured: z.boolean().meta({ description: 'True when a signing secret is stored; the secret itself is never returned.' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'WebhookConfiguration' });

export const payment = z
  .object({
    id: z.guid(),
    invoiceId: z.guid(),
    networkId: z.number().int(),
    token: z.string(),
    amount: z.string(),
    txHash: z.string(),
    confirmed: z.boolean(),
    createdAt: timestamp,
    confirmedAt: timestamp.nullable(),
  })
  .meta({ id: 'Payment' });

/**
 * An entry of an invoice's payments on the control plane: a payment (`credited: true`), or a transfer
 * a local chain saw to its deposit address that credits nothing (CONTRACT §14), with why.
 */
export const invoicePayment = payment
  .extend({
    credited: z.boolean().meta({
      description: 'false: a transfer seen on a local chain that is no payment (another token, a route the invoice does not take); `reason` says why.',
    }),
    reason: z.string().optional().meta({ description: 'Why it credits nothing (`credited: false` only).' }),
  })
  .meta({ id: 'InvoicePayment' });

/** Partner keys see the partner variant of the invoice, merchant keys the merchant variant. */
const eitherInvoice = z.union([partnerInvoice, invoice]);
export const paymentResult = z.object({ payment, invoice: eitherInvoice }).meta({ id: 'PaymentResult' });
export const expireResult = z.object({ invoice: eitherInvoice }).meta({ id: 'ExpireResult' });

export const delivery = z
  .object({
    id: z.guid(),
    eventId: z.string().meta({ description: 'The envelope `id`: `<invoiceId>-<sequence>`.' }),
    eventType: z.enum(INVOICE_EVENT_TYPES),
    invoiceId: z.guid(),
    merchantId: z.guid(),
    environment,
    url: z.string(),
    target: z.enum(DELIVERY_TARGETS).meta({
      description:
        "Extension (not in the interface document): where the delivery goes, `webhook` (the partner's webhook configuration) or `listener` (the listener `svc webhook listen` registered on the emulator).",
      'x-svc-extension': true,
    }),
    status: z.enum(DELIVERY_STATUSES),
    attemptCount: z.number().int(),
    lastAttemptAt: timestamp.nullable(),
    nextAttemptAt: timestamp.nullable(),
    lastResponseStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Delivery' });

const attempt = z
  .object({
    number: z.number().int(),
    trigger: z.enum(ATTEMPT_TRIGGERS),
    startedAt: timestamp,
    durationMs: z.number().int(),
    responseStatus: z.number().int().nullable(),
    responseBody: z.string().nullable().meta({ description: 'At most 4 KiB of what the receiver answered.' }),
    error: z.string().nullable(),
    chaos: z.string().nullable().meta({
      description:
        'Extension: the webhook chaos this attempt was sent with (`duplicate`, `delay`, `reorder`, `bad_signature`, `stale_timestamp`, comma-separated), or null.',
    }),
  })
  .meta({ id: 'DeliveryAttempt' });

export const deliveryDetail = delivery
  .extend({
    payload: z.string().meta({
      description: 'The exact body sent, as signed: a WebhookEvent.',
      contentMediaType: 'application/json',
      contentSchema: { $ref: '#/components/schemas/WebhookEvent' },
    }),
    attempts: z.array(attempt),
  })
  .meta({ id: 'DeliveryDetail' });

/** `{data, hasMore}`, newest first (CONTRACT §3). */
export const listOf = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({ data: z.array(item), hasMore: z.boolean().meta({ description: 'Whether older items follow; pass the last id as `startingAfter`.' }) })
    .meta({ id });
