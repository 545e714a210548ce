import { z } from 'zod';
import { INVOICE_EVENT_TYPES } from '../../webhooks/envelope.js';
import { amountString, listOf, listQuery, uuidString } from './common.js';
import { merchantInvoiceSchema, partnerInvoiceSchema } from './invoices.js';

export const paymentBody = z.object({
  amount: amountString('amount').optional().meta({ description: 'Default: what is left to pay.' }),
  token: z.string({ error: 'token must be a token symbol such as "USDC".' }).min(1).max(32).optional(),
  networkId: z.number({ error: 'networkId must be an integer network id.' }).int({ error: 'networkId must be an integer network id.' }).positive().optional(),
  confirmed: z
    .boolean({ error: 'confirmed must be true or false.' })
    .optional()
    .meta({ description: 'Default true; false simulates a payment seen but not yet confirmed.' }),
  txHash: z.string({ error: 'txHash must be a string.' }).min(1).max(128).optional(),
});
export type PaymentBody = z.output<typeof paymentBody>;

export const paymentSchema = z
  .object({
    id: z.guid(),
    invoiceId: z.guid(),
    networkId: z.number().int(),
    token: z.string(),
    amount: z.string(),
    txHash: z.string(),
    confirmed: z.boolean(),
    createdAt: z.iso.datetime(),
    confirmedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Payment' });

export const paymentResult = z
  .object({ payment: paymentSchema, invoice: z.union([partnerInvoiceSchema, merchantInvoiceSchema]) })
  .meta({ id: 'PaymentResult' });
export const expireResult = z.object({ invoice: z.union([partnerInvoiceSchema, merchantInvoiceSchema]) }).meta({ id: 'ExpireResult' });

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;

export const deliverySchema = z
  .object({
    id: z.guid(),
    eventId: z.string(),
    eventType: z.enum(INVOICE_EVENT_TYPES),
    invoiceId: z.guid(),
    merchantId: z.guid(),
    environment: z.enum(['test', 'live']),
    url: z.string(),
    target: z.enum(['webhook', 'listener']).meta({
      description:
        "Extension (not in the interface document): where the delivery goes, `webhook` (the partner's webhook configuration) or `listener` (the listener `svc webhook listen` registered on the emulator).",
      'x-svc-extension': true,
    }),
    status: z.enum(DELIVERY_STATUSES),
    attemptCount: z.number().int(),
    lastAttemptAt: z.iso.datetime().nullable(),
    nextAttemptAt: z.iso.datetime().nullable(),
    lastResponseStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Delivery' });

export const attemptSchema = z
  .object({
    number: z.number().int(),
    trigger: z.enum(['scheduled', 'manual']),
    startedAt: z.iso.datetime(),
    durationMs: z.number().int(),
    responseStatus: z.number().int().nullable(),
    responseBody: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'DeliveryAttempt' });

export const deliveryDetailSchema = deliverySchema
  .extend({ payload: z.string().meta({ description: 'The exact body sent.' }), attempts: z.array(attemptSchema) })
  .meta({ id: 'DeliveryDetail' });

export const deliveryList = listOf(deliverySchema, 'DeliveryList');

export const deliveryListQuery = listQuery.extend({
  status: z.enum(DELIVERY_STATUSES, { error: `status must be one of ${DELIVERY_STATUSES.join(', ')}.` }).optional(),
  eventType: z.enum(INVOICE_EVENT_TYPES, { error: `eventType must be one of ${INVOICE_EVENT_TYPES.join(', ')}.` }).optional(),
  invoiceId: uuidString('invoiceId').optional(),
  merchantId: uuidString('merchantId').optional(),
});
