import { z } from 'zod';
import { amountString, boundedString, listOf, listQuery, uuidString } from './common.js';

const routeLock = {
  networkId: z
    .number({ error: 'networkId must be an integer network id such as 84532.' })
    .int({ error: 'networkId must be an integer network id such as 84532.' })
    .positive({ error: 'networkId must be an integer network id such as 84532.' })
    .optional()
    .meta({ description: 'Locks the payment route to this network.' }),
  token: z
    .string({ error: 'token must be a token symbol such as "USDC".' })
    .min(1, { error: 'token must be a token symbol such as "USDC".' })
    .max(32, { error: 'token must be a token symbol such as "USDC".' })
    .optional()
    .meta({ description: 'Locks the payment route to this token symbol.' }),
};

export const createMerchantInvoiceBody = z.object({
  amount: amountString('amount'),
  referenceId: boundedString('referenceId').optional(),
  ...routeLock,
});
export type CreateMerchantInvoiceBody = z.output<typeof createMerchantInvoiceBody>;

export const createPartnerInvoiceBody = z.object({
  merchantId: uuidString('merchantId'),
  amount: amountString('amount'),
  referenceId: boundedString('referenceId').optional(),
  ...routeLock,
});
export type CreatePartnerInvoiceBody = z.output<typeof createPartnerInvoiceBody>;

export const INVOICE_STATUSES = ['CREATED', 'CONFIRMING', 'PARTIALLY_PAID', 'PAID', 'EXPIRED'] as const;

const tokenSchema = z.object({ symbol: z.string(), contractAddress: z.string(), decimals: z.number().int() }).meta({ id: 'Token' });
const addressSchema = z
  .object({
    chainId: z.guid(),
    chainName: z.string(),
    family: z.enum(['evm', 'tron', 'solana']),
    networkId: z.number().int(),
    depositAddress: z.string(),
    tokens: z.array(tokenSchema),
  })
  .meta({ id: 'Address' });

const invoiceFields = {
  id: z.guid(),
  status: z.enum(INVOICE_STATUSES),
  environment: z.enum(['test', 'live']),
  amount: z.string(),
  amountReceived: z.string(),
  referenceId: z.string().nullable(),
  checkoutUrl: z.url(),
  expiresAt: z.iso.datetime(),
  addresses: z.array(addressSchema),
};

/** The merchant variant: no merchantId (interface document §2.2). */
export const merchantInvoiceSchema = z.object(invoiceFields).meta({ id: 'Invoice' });
export const partnerInvoiceSchema = z.object({ ...invoiceFields, merchantId: z.guid() }).meta({ id: 'PartnerInvoice' });
export const merchantInvoiceList = listOf(merchantInvoiceSchema, 'InvoiceList');
export const partnerInvoiceList = listOf(partnerInvoiceSchema, 'PartnerInvoiceList');

export const invoiceListQuery = listQuery.extend({
  status: z.enum(INVOICE_STATUSES, { error: `status must be one of ${INVOICE_STATUSES.join(', ')}.` }).optional(),
});
export const partnerInvoiceListQuery = invoiceListQuery.extend({
  merchantId: uuidString('merchantId').optional(),
});
