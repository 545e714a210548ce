import * as z from 'zod';
import { CONTROL_SCHEMAS } from './emulator.js';
import { TESTING_SCHEMAS } from './testing.js';
import { webhookEvent } from './events.js';
import { SNAPSHOT_SCHEMAS } from './snapshots.js';
import { CHAOS_SCHEMAS } from './chaos.js';
import { CHAIN_SCHEMAS } from './chains.js';
import {
  delivery,
  deliveryDetail,
  expireResult,
  invoice,
  invoicePayment,
  listOf,
  merchant,
  partnerInvoice,
  paymentResult,
  webhookConfiguration,
} from './resources.js';

/**
 * Every response body the operations name, by component name. The server never imports this
 * module at run time (only its types): the OpenAPI builder, the response checker and the tests do.
 */
export const RESPONSE_SCHEMAS = {
  Merchant: merchant,
  MerchantList: listOf(merchant, 'MerchantList'),
  Invoice: invoice,
  PartnerInvoice: partnerInvoice,
  InvoiceList: listOf(invoice, 'InvoiceList'),
  PartnerInvoiceList: listOf(partnerInvoice, 'PartnerInvoiceList'),
  WebhookConfiguration: webhookConfiguration,
  DeliveryList: listOf(delivery, 'DeliveryList'),
  DeliveryDetail: deliveryDetail,
  PaymentResult: paymentResult,
  ExpireResult: expireResult,
  WebhookEvent: webhookEvent,
  InvoiceEvents: z.object({ data: z.array(webhookEvent) }).meta({ id: 'InvoiceEvents', description: 'Oldest first.' }),
  InvoicePayments: z
    .object({ data: z.array(invoicePayment) })
    .meta({ id: 'InvoicePayments', description: 'Oldest first, confirmed or not; with the transfers of local chains that credit nothing.' }),
  ...CONTROL_SCHEMAS,
  ...TESTING_SCHEMAS,

  ...SNAPSHOT_SCHEMAS,
  ...CHAOS_SCHEMAS,
  ...CHAIN_SCHEMAS,
};

export type ResponseSchemas = typeof RESPONSE_SCHEMAS;
export type ResponseSchemaName = keyof ResponseSchemas;
/** A response body as the emulator sends it. */
export type ResponseBody<N extends ResponseSchemaName> = z.output<ResponseSchemas[N]>;

export type Merchant = ResponseBody<'Merchant'>;
export type Invoice = ResponseBody<'Invoice'>;
export type PartnerInvoice = ResponseBody<'PartnerInvoice'>;
export type WebhookConfiguration = ResponseBody<'WebhookConfiguration'>;
export type DeliveryDetail = ResponseBody<'DeliveryDetail'>;
export type Delivery = ResponseBody<'DeliveryList'>['data'][number];
export type Payment = ResponseBody<'PaymentResult'>['payment'];
export type { WebhookEvent } from '../webhook-event.js';
