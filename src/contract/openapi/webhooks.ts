import { EVENT_CATALOG, INVOICE_EVENT_TYPES } from '../enums.js';
import { eventSchemaName } from '../schemas/events.js';
import type { JsonSchema } from './json-schema.js';

/** How a receiver verifies a delivery (interface document §6.3, CONTRACT §5). */
export const SIGNATURE_DESCRIPTION = [
  '`t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256, keyed with the webhook secret, of the string `{t}.{rawBody}`, where `{rawBody}` is the request body exactly as received (verify before parsing it).',
  'Compare in constant time; reject a `t` more than 5 minutes old (it is wall-clock time, even when the emulator clock was advanced); process each event once, keyed on the envelope `id`, since a delivery can arrive more than once.',
  "svc's own `verifyWebhook(rawBody, header, secret)` does all of this.",
].join(' ');

/** OpenAPI 3.1 `webhooks`: each event type as the request the emulator sends to the partner's URL. */
export function webhooksSection(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const type of INVOICE_EVENT_TYPES) {
    const name = eventSchemaName(type);
    out[type] = {
      post: {
        operationId: `${name[0]!.toLowerCase()}${name.slice(1)}`,
        summary: `\`${type}\`: ${EVENT_CATALOG[type].when}`,
        description: `Sent to the partner's webhook URL (and to \`svc webhook listen\`), signed. The invoice is ${EVENT_CATALOG[type].status} after it.`,
        tags: ['Webhook events'],
        security: [],
        parameters: [
          {
            name: 'X-Service-Signature',
            in: 'header',
            required: true,
            description: SIGNATURE_DESCRIPTION,
            schema: { type: 'string', pattern: '^t=[0-9]+,v1=[0-9a-f]{64}$' },
          },
          {
            name: 'User-Agent',
            in: 'header',
            required: true,
            description: 'The emulator and its version.',
            schema: { type: 'string', pattern: '^svc-emulator/' },
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: {
          '2XX': { description: 'Received: the delivery succeeds. Redirects are not followed and count as failures.' },
          '4XX': { description: 'A failure: retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery is `failed`.' },
          '5XX': { description: 'A failure, retried on the same schedule (so are timeouts, after 10 s, and connection errors).' },
        },
      },
    } satisfies JsonSchema;
  }
  return out;
}
