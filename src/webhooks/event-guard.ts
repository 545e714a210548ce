import { ENVIRONMENTS, EVENT_CATALOG, INVOICE_EVENT_TYPES } from '../contract/enums.js';
import type { WebhookEvent } from '../contract/webhook-event.js';

/**
 * Whether a parsed value is a webhook envelope as svc writes it (CONTRACT §4), by looking: the
 * type is known, its status is the catalog's, its token follows the catalog's rule. For envelopes
 * read back from the store (a restored snapshot is untrusted, CONTRACT §8). Hand-written rather than
 * the contract's zod schema: the dashboard's reads do not load zod (server/validation/schemas.ts).
 */
export function isWebhookEvent(value: unknown): value is WebhookEvent {
  if (!isObject(value)) return false;
  const type = INVOICE_EVENT_TYPES.find((t) => t === Reflect.get(value, 'type'));
  const data: unknown = Reflect.get(value, 'data');
  if (!type || !isObject(data)) return false;
  const rule = EVENT_CATALOG[type];
  const token: unknown = Reflect.get(data, 'token');
  const tokenFits = rule.token === 'never' ? token === null : rule.token === 'always' ? typeof token === 'string' : token === null || typeof token === 'string';
  return (
    strings(value, ['id', 'createdAt', 'partnerId']) &&
    ENVIRONMENTS.some((e) => e === Reflect.get(value, 'environment')) &&
    strings(data, ['invoiceId', 'merchantId', 'externalTenantId', 'amount', 'amountReceived']) &&
    Reflect.get(data, 'status') === rule.status &&
    tokenFits &&
    Number.isInteger(Reflect.get(data, 'sequence'))
  );
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: object, keys: readonly string[]): boolean => keys.every((k) => typeof Reflect.get(value, k) === 'string');
