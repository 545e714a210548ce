import { z } from 'zod';

/** Headers the emulator sets itself; a configuration may not override them (CONTRACT §5). */
export const RESERVED_HEADERS = ['content-type', 'content-length', 'host', 'user-agent', 'x-service-signature'];
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export const customHeadersSchema = z
  .record(z.string(), z.string({ error: 'customHeaders values must be strings.' }), {
    error: 'customHeaders must be an object of header name to value.',
  })
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > 20) ctx.addIssue({ code: 'custom', message: `customHeaders has ${names.length} headers; the limit is 20.` });
    for (const name of names) {
      const value = headers[name]!;
      if (!TOKEN.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: `"${name}" is not a valid HTTP header name.` });
      else if (RESERVED_HEADERS.includes(name.toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} is set by the emulator and cannot be a custom header.` });
      } else if (/[\r\n\0]/.test(value)) {
        ctx.addIssue({ code: 'custom', path: [name], message: `The value of ${name} must not contain CR, LF or NUL.` });
      } else if (value.length > 4096) {
        ctx.addIssue({ code: 'custom', path: [name], message: `The value of ${name} is longer than 4096 characters.` });
      }
    }
  })
  .meta({ description: 'Extension: headers added to every delivery. At most 20.' });

export const putWebhookBody = z.object({
  url: z.string({ error: (i) => (i.input === undefined ? 'url is required.' : 'url must be a string.') }),
  // Length rules answer webhook_secret_invalid (CONTRACT §2), so they are checked by the route.
  secret: z
    .string({ error: 'secret must be a string.' })
    .optional()
    .meta({ description: '16 to 255 characters; required when the configuration is first created.' }),
  enabled: z.boolean({ error: 'enabled must be true or false.' }).optional(),
  customHeaders: customHeadersSchema.optional(),
});
export type PutWebhookBody = z.output<typeof putWebhookBody>;

export const webhookConfigSchema = z
  .object({
    id: z.guid(),
    environment: z.enum(['test', 'live']),
    url: z.string(),
    customHeaders: z.record(z.string(), z.string()),
    enabled: z.boolean(),
    secretConfigured: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'WebhookConfiguration' });
