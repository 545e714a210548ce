/**
 * The API, declared once (issue 12). Importing this module loads no zod: the CLI and the typed
 * client read the operations and the types; schemas load only where they are used (the server's
 * request schemas, the OpenAPI builder's response schemas).
 */
export { OPERATIONS, operationEntries, type OperationId, type Operations } from './operations/index.js';
export { errorCodesOf, TAGS, type OperationSpec, type ResponseSpec, type Tag } from './operation.js';
export { ERRORS, EVERY_REQUEST, UNROUTED, type ApiErrorBody, type CodeOfStatus, type ErrorCode } from './errors.js';
export * from './enums.js';
export type * from './types.js';
export type { RequestInputOf, RequestOf, RequestSchemaName } from './schemas/requests.js';
export type {
  Delivery,
  DeliveryDetail,
  Invoice,
  Merchant,
  PartnerInvoice,
  Payment,
  ResponseBody,
  ResponseSchemaName,
  WebhookConfiguration,
  WebhookEvent,
} from './schemas/responses.js';
