import { ApiRefusedError } from '../../../client/errors.js';
import { generateSecret } from '../../../domain/keys.js';
import { UsageError } from '../../../errors.js';
import { required } from '../../prompt.js';
import { call, connect } from '../../service.js';
import type { Handler } from '../../spec.js';
import { webhookView, type WebhookConfigData } from '../../views/webhook.js';

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * `svc webhook set`: creates or updates the partner's webhook (PUT, partner key). Without --secret,
 * a first configuration gets a generated `whsec_…` secret, shown once on stderr (in every mode, even
 * --quiet, since it cannot be read back); an existing configuration keeps its secret, so the
 * handler asks first (404 webhook_not_configured means this is the first time). `--header` replaces
 * the custom headers; without it they are kept.
 */
export const setWebhookCommand: Handler = async ({ options }, ctx) => {
  if (options.enable && options.disable) throw new UsageError('--enable and --disable cannot be used together', '--enable');
  const customHeaders = options.header === undefined ? undefined : parseHeaders(options.header as string[]);
  const url = await required(ctx, options.url as string | undefined, {
    flag: '--url',
    message: 'Webhook URL:',
    what: 'the receiving endpoint, e.g. http://localhost:3000/hooks',
    validate: (v) => (URL.canParse(v) && /^https?:$/.test(new URL(v).protocol)) || 'an http(s) URL, e.g. http://localhost:3000/hooks',
  });
  const { client } = await connect(ctx);

  let secret = options.secret as string | undefined;
  let generated = false;
  if (secret === undefined && !(await hasSecret(() => call(ctx, 'Reading the webhook', client.getWebhook())))) {
    secret = generateSecret();
    generated = true;
  }
  const body = {
    url,
    ...(secret !== undefined ? { secret } : {}),
    ...(options.enable ? { enabled: true } : options.disable ? { enabled: false } : {}),
    ...(customHeaders ? { customHeaders } : {}),
  };
  const res = await call(ctx, 'Saving the webhook', client.putWebhook(body));
  return {
    data: res.data,
    human: (c) => webhookView(c, res.data as WebhookConfigData),
    alerts: generated ? [`Generated webhook secret (shown only now; pass it to your receiver): ${secret}`] : [],
  };
};

async function hasSecret(read: () => Promise<{ data: unknown }>): Promise<boolean> {
  try {
    const { data } = await read();
    return (data as WebhookConfigData).secretConfigured === true;
  } catch (error) {
    if (error instanceof ApiRefusedError && error.status === 404 && error.error.code === 'webhook_not_configured') return false;
    throw error;
  }
}

/** `Name: value` lines to an object; anything else is a usage error naming --header. */
function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!HEADER_NAME.test(name)) {
      throw new UsageError(`--header must look like 'Name: value', not "${line}"`, '--header');
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}
