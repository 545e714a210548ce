import * as z from 'zod';
import { DELIVERY_STATUSES, INVOICE_EVENT_TYPES, INVOICE_STATUSES } from '../enums.js';
import { amountString, boundedString, listQuery, uuidString } from './common.js';
import { customHeadersSchema } from './custom-headers.js';
import { CHAOS_REQUESTS } from './chaos.js';
import { CHAIN_REQUESTS } from './chains.js';
import { lazyRecord } from './lazy.js';
import { NETWORK_ID_MESSAGE, TOKEN_MAX_LENGTH, TOKEN_MESSAGE } from './messages.js';
import { SNAPSHOT_REQUESTS } from './snapshots.js';
import { TESTING_REQUESTS } from './testing-requests.js';

/**
 * Request bodies and queries, validated with zod by the server (the messages and `param` rules of
 * CONTRACT §2). Operations name them by their key in `REQUEST_SCHEMAS`; the names of bodies are
 * also their names in the OpenAPI document's components. Each is a thunk, built on first use
 * (./lazy.ts): a process that serves one create builds one schema, not all of them.
 */

const routeLock = () => ({
  networkId: z
    .number({ error: NETWORK_ID_MESSAGE })
    .int({ error: NETWORK_ID_MESSAGE })
    .positive({ error: NETWORK_ID_MESSAGE })
    .optional()
    .meta({ description: 'Locks the payment route to this network.' }),
  token: z
    .string({ error: TOKEN_MESSAGE })
    .min(1, { error: TOKEN_MESSAGE })
    .max(TOKEN_MAX_LENGTH, { error: TOKEN_MESSAGE })
    .optional()
    .meta({ description: 'Locks the payment route to this token symbol.' }),
});

const createMerchant = () =>
  z.object({
    externalTenantId: boundedString('externalTenantId').meta({ description: "The partner's own identifier for the tenant." }),
    email: z.email({ error: (issue) => (issue.input === undefined ? 'email is required.' : 'email must be an e-mail address.') }).max(255),
    name: boundedString('name'),
  });

const createInvoice = () =>
  z.object({
    amount: amountString('amount'),
    referenceId: boundedString('referenceId').optional(),
    ...routeLock(),
  });

const createPartnerInvoice = () =>
  z.object({
    merchantId: uuidString('merchantId'),
    amount: amountString('amount'),
    referenceId: boundedString('referenceId').optional(),
    ...routeLock(),
  });

const putWebhook = () =>
  z.object({
    url: z.string({ error: (i) => (i.input === undefined ? 'url is required.' : 'url must be a string.') }).meta({
      format: 'uri',
      description: 'test: http or https to any host; live: https to a public host only (CONTRACT §5).',
    }),
    // Length rules answer webhook_secret_invalid (CONTRACT §2), so they are checked by the action.
    secret: z
      .string({ error: 'secret must be a string.' })
      .optional()
      .meta({ minLength: 16, maxLength: 255, description: '16 to 255 characters; required when the configuration is first created, kept when omitted later.' }),
    enabled: z.boolean({ error: 'enabled must be true or false.' }).optional(),
    customHeaders: customHeadersSchema().optional(),
  });

const createPayment = () =>
  z.object({
    amount: amountString('amount').optional().meta({ description: 'Default: what is left to pay.' }),
    token: z.string({ error: 'token must be a token symbol such as "USDC".' }).min(1).max(32).optional(),
    networkId: z.number({ error: 'networkId must be an integer network id.' }).int({ error: 'networkId must be an integer network id.' }).positive().optional(),
    confirmed: z
      .boolean({ error: 'confirmed must be true or false.' })
      .optional()
      .meta({ description: 'Default true; false simulates a payment seen but not yet confirmed.' }),
    txHash: z.string({ error: 'txHash must be a string.' }).min(1).max(128).optional(),
  });

const invoiceListQuery = () =>
  listQuery().extend({
    status: z.enum(INVOICE_STATUSES, { error: `status must be one of ${INVOICE_STATUSES.join(', ')}.` }).optional(),
  });

const deliveryListQuery = () =>
  listQuery().extend({
    status: z.enum(DELIVERY_STATUSES, { error: `status must be one of ${DELIVERY_STATUSES.join(', ')}.` }).optional(),
    eventType: z.enum(INVOICE_EVENT_TYPES, { error: `eventType must be one of ${INVOICE_EVENT_TYPES.join(', ')}.` }).optional(),
    invoiceId: uuidString('invoiceId').optional(),
    merchantId: uuidString('merchantId').optional(),
  });

const advanceClock = () =>
  z.object({
    seconds: z
      .number({ error: 'seconds must be a number of seconds to move the clock forward.' })
      .positive({ error: 'seconds must be greater than zero: the clock only moves forward.' })
      .max(10 * 365 * 86400, { error: 'seconds must be at most ten years.' }),
  });

const setMerchantChains = () =>
  z.object({
    networkIds: z.array(z.number().int()).nullable().meta({ description: 'Enabled networkIds, or null for every chain of the environment.' }),
  });

const registerListener = () =>
  z.object({
    forwardTo: z.string({ error: 'forwardTo must be the URL the listener forwards to.' }).min(1).max(2048),
    events: z
      .array(z.enum(INVOICE_EVENT_TYPES, { error: 'events must be event types such as invoice.paid.' }))
      .nullable()
      .optional()
      .meta({ description: 'Event types to receive; null or absent for all.' }),
    timeoutSeconds: z.number().int().min(1).max(300).optional(),
  });

const listenerResult = () =>
  z.object({
    requestId: z.string().min(1).max(64),
    status: z.number().int().min(100).max(599).nullable(),
    body: z.string().max(1_000_000).nullable().optional(),
    error: z.string().max(2000).nullable().optional(),
    durationMs: z.number().min(0),
  });

const SECONDS = 'timeoutSeconds must be a whole number of seconds from 1 to 300.';
// The listener's own forward timeout (`svc webhook listen --timeout`, 1 to 300 s); the hub waits a
// little longer for its report. Bounded, so no value can overflow a timer (1e10 s fired at once).
const listenerStreamQuery = () =>
  z.object({
    timeoutSeconds: z.coerce.number({ error: SECONDS }).int({ error: SECONDS }).min(1, { error: SECONDS }).max(300, { error: SECONDS }).default(30),
  });

const deliveryStreamQuery = () =>
  z.object({
    status: z.enum(DELIVERY_STATUSES).optional(),
    eventType: z.enum(INVOICE_EVENT_TYPES).optional(),
    invoiceId: z.string().optional(),
  });

export const REQUEST_SCHEMAS = lazyRecord({
  CreateMerchantRequest: createMerchant,
  CreateInvoiceRequest: createInvoice,
  CreatePartnerInvoiceRequest: createPartnerInvoice,
  PutWebhookRequest: putWebhook,
  CreatePaymentRequest: createPayment,
  AdvanceClockRequest: advanceClock,
  CreatePartnerRequest: () => z.object({ name: z.string().min(1).max(255).optional() }),
  SetMerchantChainsRequest: setMerchantChains,
  RegisterListenerRequest: registerListener,
  ListenerResultRequest: listenerResult,
  ListQuery: listQuery,
  InvoiceListQuery: invoiceListQuery,
  PartnerInvoiceListQuery: () => invoiceListQuery().extend({ merchantId: uuidString('merchantId').optional() }),
  DeliveryListQuery: deliveryListQuery,
  ListenerStreamQuery: listenerStreamQuery,
  DeliveryStreamQuery: deliveryStreamQuery,
  ...TESTING_REQUESTS,
  ...SNAPSHOT_REQUESTS,
  ...CHAOS_REQUESTS,
  ...CHAIN_REQUESTS,
} satisfies Record<string, () => z.ZodObject>);

export type RequestSchemas = typeof REQUEST_SCHEMAS;
export type RequestSchemaName = keyof RequestSchemas;
/** A request body or query as the handler receives it (defaults applied). */
export type RequestOf<N extends RequestSchemaName> = z.output<RequestSchemas[N]>;
/** A request body or query as a client sends it. */
export type RequestInputOf<N extends RequestSchemaName> = z.input<RequestSchemas[N]>;
